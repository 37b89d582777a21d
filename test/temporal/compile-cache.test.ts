import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const moduleUrl = new URL('../../temporal/compile-cache.ts', import.meta.url).href;
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((f) => rm(f, { recursive: true, force: true }))));

// A process of its own (the test runner's may have a cache already), as worker-main starts: the call, then a
// worker thread, as the Temporal SDK starts its workflow thread.
const script = `
import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
const { enableCompileCacheForThreads } = await import(process.argv[1]);
const chosen = enableCompileCacheForThreads(process.argv[2]);
const thread = new Worker("Promise.all([import('node:module'), import('node:worker_threads')]).then(([m, w]) => w.parentPort.postMessage(m.getCompileCacheDir() ?? null))", { eval: true });
thread.once('message', (inThread) => { console.log(JSON.stringify({ chosen, main: getCompileCacheDir() ?? null, inThread })); thread.terminate(); });
`;

describe('the worker entry turns on the compile cache', () => {
  it('for its workflow thread as well as for itself, in the same folder', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sc-compile-cache-'));
    folders.push(folder);
    const env = { ...process.env };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, fileURLToPath(moduleUrl), folder],
      { env },
    );
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as { chosen: string; main: string; inThread: string | null };
    // Node keeps its entries in a folder of its version below the one chosen.
    expect(seen.chosen).toBe(folder);
    expect(seen.main.startsWith(folder)).toBe(true);
    expect(seen.inThread).toBe(seen.main);
  });
});
