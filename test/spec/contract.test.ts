// Spec audit (docs/spec-coverage.md): CONTRACT.md's `npm start` on an empty database, end to end, as a real
// child process: it prints the API base URL and the demo keys, the printed key works, and Ctrl-C stops it cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../config/free-port.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sc-spec-start-'));
const database = `sc_spec_start_${randomBytes(4).toString('hex')}`;
const ownTemporalDataDir = mkdtempSync(join(tmpdir(), 'sc-spec-start-own-'));
const dbUrl = (name: string) => {
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${name}`;
  return u.toString();
};
let child: ChildProcess | undefined;
let ownTemporalChild: ChildProcess | undefined;

afterAll(async () => {
  for (const proc of [child, ownTemporalChild]) if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  const c = new pg.Client({ connectionString: dbUrl('postgres') });
  await c.connect();
  await c.query(`drop database if exists ${database} with (force)`);
  await c.end();
  rmSync(dataDir, { recursive: true, force: true });
  // As root the embedded cluster lives under /var/lib/store-commerce and DATA_DIR/pg links to it: remove both.
  const cluster = join(ownTemporalDataDir, 'pg');
  if (existsSync(cluster)) rmSync(realpathSync(cluster), { recursive: true, force: true });
  rmSync(ownTemporalDataDir, { recursive: true, force: true });
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
    { timeout: 240_000 },
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

      const printed = await waitFor(child, out, /Ctrl-C stops everything/, 200_000);
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

  // Without DATABASE_URL and TEMPORAL_ADDRESS, `npm start` runs an embedded PostgreSQL and its own Temporal dev server with
  // the Web UI under DATA_DIR, and prints the UI's URL (CONTRACT.md: "… prints its keys, the API base URL and the Temporal
  // UI URL"). The dev server prefers 7233/8233 and takes free ports when those are taken (another service on this
  // machine), so the test reads the printed URL and asks it for a page.
  it(
    'with no DATABASE_URL and no TEMPORAL_ADDRESS runs embedded PostgreSQL and its own Temporal, and prints a Temporal UI URL that answers',
    { timeout: 320_000 },
    async () => {
      const port = await freePort();
      const out = { text: '' };
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: ownTemporalDataDir,
        LOG_LEVEL: 'silent',
        PORT: String(port),
        HOST: '127.0.0.1',
      };
      delete env.DATABASE_URL;
      delete env.TEMPORAL_ADDRESS;
      delete env.TEMPORAL_NAMESPACE;
      delete env.TEMPORAL_TASK_QUEUE;
      ownTemporalChild = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const proc = ownTemporalChild;
      proc.stdout!.on('data', (chunk: Buffer) => (out.text += chunk.toString()));
      proc.stderr!.on('data', (chunk: Buffer) => (out.text += chunk.toString()));

      const printed = await waitFor(proc, out, /Ctrl-C stops everything/, 280_000);
      expect(printed).toContain(`API:           http://127.0.0.1:${port}/api/v1`);
      expect(printed).toMatch(/embedded PostgreSQL/i);
      const secret = /secret key:\s+(svc_live_sk_[0-9a-f]{48})/.exec(printed)?.[1];
      const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
      expect(me.status).toBe(200);
      expect(printed).not.toMatch(/^\[start\] Temporal:/m);
      const uiUrl = /Temporal UI:\s+(http:\/\/127\.0\.0\.1:(\d+))\s/.exec(printed)?.[1];
      expect(uiUrl, printed).toBeDefined();

      // The UI comes up a moment after the frontend port opens; give it a few seconds.
      let page: Response | undefined;
      for (let tries = 0; tries < 40 && page?.status !== 200; tries++) {
        page = await fetch(uiUrl!).catch(() => undefined);
        if (page?.status !== 200) await new Promise((done) => setTimeout(done, 250));
      }
      expect(page?.status).toBe(200);
      expect(await page!.text()).toMatch(/<html/i);
      // The UI talks to this dev server: its API lists the namespace the worker uses ('default').
      const namespaces = await fetch(`${uiUrl}/api/v1/namespaces`);
      expect(namespaces.status).toBe(200);
      const listed = (await namespaces.json()) as { namespaces: { namespaceInfo: { name: string } }[] };
      expect(listed.namespaces.map((n) => n.namespaceInfo.name)).toContain('default');

      const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
      proc.kill('SIGINT');
      expect(await exited).toBe(0);
      // Ctrl-C stopped the dev server it started too: its UI no longer answers.
      await expect(fetch(uiUrl!)).rejects.toThrow();
    },
  );
});
