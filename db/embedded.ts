import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { noteEmbeddedUrl } from './embedded-url.js';

export { readEmbeddedUrl } from './embedded-url.js';

export interface LocalPostgres {
  url: string;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, or the preferred one when it is free. */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((done) => {
      const server = createServer();
      server.once('error', () => done(null));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => done(typeof address === 'object' && address ? address.port : null));
      });
    });
  return (preferred && (await tryPort(preferred))) || (await tryPort(0))!;
}

/**
 * Starts the embedded PostgreSQL (real server binaries from npm) with its data under `dir`, in a child
 * process of its own; creates the cluster on first use. Runs as root too, through a dedicated system user.
 */
export async function startEmbeddedPostgres(dir: string, opts: { port?: number; log?: (line: string) => void } = {}): Promise<LocalPostgres> {
  const databaseDir = resolve(dir);
  const port = await freePort(opts.port ?? 54329);
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const entry = fileURLToPath(new URL(`./embedded-server${ext}`, import.meta.url));
  // Detached: a Ctrl-C in the terminal reaches us, and we stop PostgreSQL last, after the API and worker.
  const child = spawn(process.execPath, [...(ext === '.ts' ? ['--import', 'tsx'] : []), entry, databaseDir, String(port)], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => opts.log?.(chunk.toString().trimEnd()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error('embedded PostgreSQL did not start within 180 s')), 180_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) (clearTimeout(timer), ready());
    });
    child.once('exit', (code) => (clearTimeout(timer), fail(new Error(`embedded PostgreSQL exited with code ${code}`))));
  });
  child.unref();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/store_commerce`;
  await ensureDatabase(url);
  const forgetUrl = noteEmbeddedUrl(databaseDir, url);
  return {
    url,
    async stop() {
      forgetUrl();
      const exited = new Promise<void>((done) => (child.exitCode !== null ? done() : child.once('exit', () => done())));
      child.stdin!.end();
      await exited;
    },
  };
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), client_encoding: 'UTF8' });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!found.rowCount) await client.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
