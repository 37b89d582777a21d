// Recording mode (`npm run histories:record`, or RECORD_HISTORIES=1 with any test files): before the
// run's Temporal dev server stops, keep a few histories of every workflow type the tests ran, as JSON
// files under test/replay/histories/, for replay.test.ts to replay against later workflow code.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';

/** Where the histories live, one file per history: `<workflow type>-<n>.json`. */
export const HISTORIES_DIR = new URL('./histories/', import.meta.url);

/** Per workflow type: at most this many histories, each at most this large. */
const PER_TYPE = 3;
const MAX_BYTES = 40_000;
/** Executions looked at per workflow type (the newest). */
const LOOK_AT = 60;

const EventType = proto.temporal.api.enums.v1.EventType;

/** What a history exercises: its event kinds, the signals it received and the activities it called. */
function features(history: History): Set<string> {
  const found = new Set<string>();
  for (const e of history.events ?? []) {
    found.add(EventType[e.eventType ?? 0] ?? String(e.eventType));
    const signal = e.workflowExecutionSignaledEventAttributes?.signalName;
    if (signal) found.add(`signal ${signal}`);
    const activity = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity) found.add(`activity ${activity}`);
  }
  return found;
}

interface Candidate {
  json: string;
  features: Set<string>;
}

/**
 * Fetches the histories of the workflows the run's tests ran and keeps, per type, the few that together
 * exercise the most (greedy: each next one adds the most event kinds, signals and activities not yet
 * covered; the smaller wins a tie). Replaces the files of the types it recorded; returns their names.
 */
export async function recordHistories(address: string, namespace = 'default'): Promise<string[]> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  try {
    const byType = new Map<string, { workflowId: string; runId: string }[]>();
    for await (const wf of client.workflow.list()) {
      const runs = byType.get(wf.type) ?? [];
      if (runs.length < LOOK_AT) runs.push({ workflowId: wf.workflowId, runId: wf.runId });
      byType.set(wf.type, runs);
    }
    const dir = HISTORIES_DIR.pathname;
    mkdirSync(dir, { recursive: true });
    const written: string[] = [];
    for (const [type, runs] of [...byType].sort(([a], [b]) => a.localeCompare(b))) {
      const candidates: Candidate[] = [];
      for (const run of runs) {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const json = `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`;
        if (json.length <= MAX_BYTES) candidates.push({ json, features: features(history) });
      }
      const chosen = choose(candidates);
      if (chosen.length === 0) continue;
      for (const old of readdirSync(dir).filter((f) => f.startsWith(`${type}-`))) rmSync(join(dir, old));
      chosen.forEach((c, i) => {
        const name = `${type}-${i + 1}.json`;
        writeFileSync(join(dir, name), c.json);
        written.push(name);
      });
    }
    return written;
  } finally {
    await connection.close();
  }
}

function choose(candidates: Candidate[]): Candidate[] {
  const covered = new Set<string>();
  const chosen: Candidate[] = [];
  while (chosen.length < PER_TYPE) {
    let best: { c: Candidate; adds: number } | undefined;
    for (const c of candidates) {
      if (chosen.includes(c)) continue;
      const adds = [...c.features].filter((f) => !covered.has(f)).length;
      if (adds > 0 && (!best || adds > best.adds || (adds === best.adds && c.json.length < best.c.json.length))) best = { c, adds };
    }
    if (!best) break;
    chosen.push(best.c);
    for (const f of best.c.features) covered.add(f);
  }
  return chosen;
}
