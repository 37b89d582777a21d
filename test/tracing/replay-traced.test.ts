// The traced workflow bundle (Temporal's OpenTelemetry workflow interceptors, used when tracing is on)
// replays every recorded history: turning tracing on or off never makes a running workflow nondeterministic.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowTracingModule } from '../../temporal/tracing.js';
import { HISTORIES_DIR } from '../replay/record.js';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process.
}

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

describe('the traced workflow bundle', () => {
  it('replays every recorded history without a nondeterminism error', async () => {
    const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(new URL(file, HISTORIES_DIR), 'utf8'))),
    }));
    const failures: string[] = [];
    let replayed = 0;
    const options = {
      workflowsPath,
      interceptors: { workflowModules: [workflowTracingModule()] },
      // The interceptors' spans leave the sandbox through this sink; replay does not call it.
      sinks: { exporter: { export: { fn: () => undefined } } },
    };
    for await (const result of Worker.runReplayHistories(options, histories)) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(files.length);
  }, 180_000);
});
