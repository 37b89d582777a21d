// The API's process entry (api/server.ts, what `npm run start:api` runs): it turns Node's compile cache on
// before the API's modules load, so a restarted API reuses what its predecessor compiled, and says so at start.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../config/free-port.js';
import { stopChild } from '../../dev/temporal/dev-server.js';
import { testEnv } from '../global-setup.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((f) => rm(f, { recursive: true, force: true }))));

/** Starts the API entry as production does (node + tsx here), returns its "api starting" log line, and stops it. */
async function startingLine(extraEnv: Record<string, string>): Promise<Record<string, unknown>> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...testEnv({
      databaseUrl: inject('databaseUrl'),
      temporalAddress: inject('temporalAddress'),
      taskQueue: 'server-entry-test',
      secretsKey: inject('secretsKey'),
    }),
    PORT: String(await freePort()),
    ...extraEnv,
  };
  // The test runner's own settings must not decide what the entry does.
  delete env.NODE_DISABLE_COMPILE_CACHE;
  if (!extraEnv.NODE_COMPILE_CACHE) delete env.NODE_COMPILE_CACHE;
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'api/server.ts')], {
    cwd: repoRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    return await new Promise((found, failed) => {
      const timer = setTimeout(() => failed(new Error(`no "api starting" line within 60 s; output: ${out.slice(-2000)}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const line of out.split('\n')) {
          if (!line.includes('"api starting')) continue;
          clearTimeout(timer);
          found(JSON.parse(line) as Record<string, unknown>);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => failed(new Error(`the API exited (${code}) before its "api starting" line: ${out.slice(-2000)}`)));
    });
  } finally {
    await stopChild(child);
  }
}

describe('the API entry', () => {
  it('turns the compile cache on before its modules load, and logs where it is', async () => {
    const line = await startingLine({});
    expect(typeof line.compileCache).toBe('string');
    expect(line.modulesLoadedMs).toEqual(expect.any(Number));
  });

  it("keeps an operator's NODE_COMPILE_CACHE", async () => {
    const operators = await mkdtemp(join(tmpdir(), 'sc-api-compile-cache-'));
    folders.push(operators);
    const line = await startingLine({ NODE_COMPILE_CACHE: operators });
    expect(String(line.compileCache).startsWith(operators + '/')).toBe(true);
  });
});
