import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const modulePath = fileURLToPath(new URL('../../config/compile-cache.ts', import.meta.url));
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((f) => rm(f, { recursive: true, force: true }))));

// A process of its own (the test runner's may have a cache already), started as worker-main starts: the call,
// then a worker thread, as the Temporal SDK starts its workflow thread. It prints where each thread caches.
const script = `
import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
const { enableCompileCacheForThreads } = await import(process.argv[1]);
enableCompileCacheForThreads(process.argv[2] || undefined);
const thread = new Worker("Promise.all([import('node:module'), import('node:worker_threads')]).then(([m, w]) => w.parentPort.postMessage(m.getCompileCacheDir() ?? null))", { eval: true });
thread.once('message', (inThread) => { console.log(JSON.stringify({ main: getCompileCacheDir() ?? null, inThread })); thread.terminate(); });
`;

/** Where the main thread and a worker thread cache compiled code, in a new process with `env`. */
async function cacheFolders(directory: string, env: Record<string, string | undefined>) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, modulePath, directory], {
    env: env as NodeJS.ProcessEnv,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { main: string | null; inThread: string | null };
}

const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), 'sc-compile-cache-'));
  folders.push(made);
  return made;
};
const withoutCacheVariables = () => {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return env;
};

describe('enableCompileCacheForThreads (the worker and API entries)', () => {
  it('for its workflow thread as well as for itself, in the same folder', async () => {
    const chosen = await folder();
    const seen = await cacheFolders(chosen, withoutCacheVariables());
    // Node keeps its entries in a folder of its version below the one chosen.
    expect(seen.main?.startsWith(chosen + '/')).toBe(true);
    expect(seen.inThread).toBe(seen.main);
  });

  it("keeps an operator's NODE_COMPILE_CACHE: both threads use it, not a folder nested in it", async () => {
    const operators = await folder();
    const seen = await cacheFolders('', { ...withoutCacheVariables(), NODE_COMPILE_CACHE: operators });
    expect(seen.main?.startsWith(operators + '/')).toBe(true);
    expect(seen.inThread).toBe(seen.main);
  });
});
