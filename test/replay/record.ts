// Recording mode (`npm run histories:record`, or RECORD_HISTORIES=1 with any test files): before the
// run's Temporal dev server stops, keep histories of the workflows the tests ran, as JSON files under
// test/replay/histories/ (the format of Temporal's other tools), for replay.test.ts to replay against
// later workflow code.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

/** Where the histories live, one file per history: `<workflow type>-<n>.json`. */
export const HISTORIES_DIR = new URL('./histories/', import.meta.url);

/** Per workflow type and recording: at most this many new histories, each at most this large. */
const PER_TYPE = 3;
const MAX_BYTES = 40_000;
/** Executions looked at per workflow type (the newest). */
const LOOK_AT = 60;

interface HistoryJson {
  events: {
    eventType: string;
    workflowExecutionSignaledEventAttributes?: { signalName?: string };
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
    markerRecordedEventAttributes?: { markerName?: string };
  }[];
}

/** What a history exercises: its event kinds, the signals it received, the activities it called, its markers (patches). */
function features(history: HistoryJson): Set<string> {
  const found = new Set<string>();
  for (const e of history.events) {
    found.add(e.eventType);
    const signal = e.workflowExecutionSignaledEventAttributes?.signalName;
    if (signal) found.add(`signal ${signal}`);
    const activity = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity) found.add(`activity ${activity}`);
    const marker = e.markerRecordedEventAttributes?.markerName;
    if (marker) found.add(`marker ${marker}`);
  }
  return found;
}

interface Candidate {
  json: string;
  features: Set<string>;
}

/**
 * Fetches the histories of the workflows the run's tests ran and adds, per type, the few that exercise
 * what the files already kept do not (greedy: each next one adds the most event kinds, signals,
 * activities and markers not yet covered; the smaller wins a tie). Kept files are never replaced: they
 * stand for workflows still running on older code, which a patched() change must keep replaying.
 * Returns the names of the files it wrote.
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
      const kept = readdirSync(dir).filter((f) => f.startsWith(`${type}-`) && f.endsWith('.json'));
      const covered = new Set(kept.flatMap((f) => [...features(JSON.parse(readFileSync(join(dir, f), 'utf8')) as HistoryJson)]));
      const candidates: Candidate[] = [];
      for (const run of runs) {
        const parsed = JSON.parse(historyToJSON(await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory())) as HistoryJson;
        const json = `${JSON.stringify(parsed, null, 1)}\n`;
        if (json.length <= MAX_BYTES) candidates.push({ json, features: features(parsed) });
      }
      let next = Math.max(0, ...kept.map((f) => Number(f.slice(type.length + 1, -'.json'.length)) || 0)) + 1;
      for (const c of choose(candidates, covered)) {
        const name = `${type}-${next++}.json`;
        writeFileSync(join(dir, name), c.json);
        written.push(name);
      }
    }
    return written;
  } finally {
    await connection.close();
  }
}

function choose(candidates: Candidate[], covered: Set<string>): Candidate[] {
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
