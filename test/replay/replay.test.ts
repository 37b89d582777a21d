// Replays the recorded histories of every workflow type (test/replay/histories/, made by
// `npm run histories:record`) against today's workflow code: a change that would make a running
// workflow take another path than its history (an activity added, removed or reordered, a timer or a
// signal handled differently) fails here instead of stalling workflows in production.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../workflows/catalog.js';
import { HISTORIES_DIR } from './record.js';

// The replay worker's bundling and state lines are noise here; its warnings and errors are kept.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process.
}

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const files = readdirSync(HISTORIES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const typeOf = (file: string) => file.replace(/-\d+\.json$/, '');

describe('recorded workflow histories replay against today’s workflow code', () => {
  it('every workflow type has at least one recorded history', () => {
    expect([...new Set(files.map(typeOf))].sort()).toEqual(
      Object.values(workflows)
        .map((w) => w.name)
        .sort(),
    );
  });

  it('every history replays without a nondeterminism error', async () => {
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(new URL(file, HISTORIES_DIR), 'utf8'))),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowsPath }, histories)) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(files.length);
  }, 180_000);
});
