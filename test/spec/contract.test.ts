// Spec audit (docs/spec-coverage.md): CONTRACT.md's `npm start` on an empty database, end to end, as a real
// child process: it prints the API base URL and the demo keys, the printed key works, and Ctrl-C stops it cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../db/embedded.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sc-spec-start-'));
const database = `sc_spec_start_${randomBytes(4).toString('hex')}`;
const dbUrl = (name: string) => {
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${name}`;
  return u.toString();
};
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  const c = new pg.Client({ connectionString: dbUrl('postgres') });
  await c.connect();
  await c.query(`drop database if exists ${database} with (force)`);
  await c.end();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves with everything printed once `pattern` appears on stdout, or rejects after `ms`. */
function waitFor(proc: ChildProcess, out: { text: string }, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ${pattern} within ${ms} ms:\n${out.text}`)), ms);
    const check = () => {
      if (pattern.test(out.text)) {
        clearTimeout(timer);
        done(out.text);
      }
    };
    proc.stdout!.on('data', check);
    proc.on('exit', () => {
      clearTimeout(timer);
      if (!pattern.test(out.text)) fail(new Error(`exited before ${pattern}:\n${out.text}`));
    });
    check();
  });
}

describe('npm start on an empty database (CONTRACT.md, Commands)', () => {
  it(
    'creates the database and a demo store, prints the API base URL and keys that work, and stops cleanly on Ctrl-C',
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const out = { text: '' };
      child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
        cwd: repoRoot,
        env: {
          ...process.env,
          DATABASE_URL: dbUrl(database),
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: 'start-test',
          TEMPORAL_TASK_QUEUE: `spec-start-${database}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          PORT: String(port),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (out.text += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (out.text += chunk.toString()));

      const printed = await waitFor(child, out, /Ctrl-C stops everything/, 100_000);
      const baseUrl = `http://127.0.0.1:${port}/api/v1`;
      expect(printed).toContain(`API:           ${baseUrl}`);
      const secret = /secret key:\s+(svc_live_sk_[0-9a-f]{48})/.exec(printed)?.[1];
      const publishable = /publishable key:\s+(svc_live_pk_[0-9a-f]{48})/.exec(printed)?.[1];
      expect(secret, printed).toBeDefined();
      expect(publishable, printed).toBeDefined();

      const me = await fetch(`${baseUrl}/me`, { headers: { authorization: `Bearer ${secret}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { api_version: string }).api_version).toBe('v1');
      const products = await fetch(`${baseUrl}/products`, { headers: { authorization: `Bearer ${secret}` } });
      expect(((await products.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

      const exited = new Promise<number | null>((done) => child!.on('exit', (code) => done(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await expect(fetch(`${baseUrl}/me`)).rejects.toThrow();
    },
  );
});
