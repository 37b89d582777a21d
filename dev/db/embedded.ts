import { resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { noteEmbeddedUrl } from './embedded-url.js';
import { freePort } from '../../config/free-port.js';

export { readEmbeddedUrl } from './embedded-url.js';

export interface LocalPostgres {
  url: string;
  stop(): Promise<void>;
}

/** A start of the embedded PostgreSQL that failed; its message is one line naming the cause. */
export class EmbeddedPostgresError extends Error {}

/**
 * Starts the embedded PostgreSQL (real server binaries from npm) with its data under `dir`, in a child
 * process of its own; creates the cluster on first use. Runs as root too, as the postgres system user,
 * with binaries and data moved where that user reaches them when it cannot reach the repository (embedded-place.ts).
 */
export async function startEmbeddedPostgres(
  dir: string,
  opts: { port?: number; log?: (line: string) => void; say?: (line: string) => void } = {},
): Promise<LocalPostgres> {
  const databaseDir = resolve(dir);
  const port = await freePort(opts.port ?? 54329);
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const entry = fileURLToPath(new URL(`./embedded-server${ext}`, import.meta.url));
  // Detached: a Ctrl-C in the terminal reaches us, and we stop PostgreSQL last, after the API and worker.
  const child = spawn(process.execPath, [...(ext === '.ts' ? ['--import', 'tsx'] : []), entry, databaseDir, String(port)], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // The server's own log goes to opts.log; its NOTE lines (where the data went) to opts.say; its FAILED line becomes the error.
  let failure = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString().trimEnd();
    for (const line of text.split('\n')) {
      if (line.startsWith('FAILED: ')) failure = line.slice('FAILED: '.length);
      else if (line.startsWith('NOTE: ')) opts.say?.(line.slice('NOTE: '.length));
    }
    opts.log?.(text);
  });
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(
      () => fail(new EmbeddedPostgresError(`embedded PostgreSQL did not start within 180 s (data in ${databaseDir})`)),
      180_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('READY')) return;
      clearTimeout(timer);
      ready();
    });
    child.once(
      'exit',
      (code) => (clearTimeout(timer), fail(new EmbeddedPostgresError(`embedded PostgreSQL: ${failure || `exited with code ${code}`}`))),
    );
  }).catch((err: unknown) => {
    child.stdin!.end();
    throw err;
  });
  child.unref();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/store_commerce`;
  await ensureDatabase(url);
  const forgetUrl = noteEmbeddedUrl(databaseDir, url);
  return {
    url,
    async stop() {
      forgetUrl();
      // The child is unref'd: hold the event loop open until it has stopped PostgreSQL and exited.
      const hold = setInterval(() => undefined, 1000);
      const exited = new Promise<void>((done) => (child.exitCode !== null ? done() : child.once('exit', () => done())));
      child.stdin!.end();
      await exited.finally(() => clearInterval(hold));
    },
  };
}

/** A database named in a URL that does not exist and that its role may not create; the message is one line with the fix. */
export class DatabaseMissingError extends Error {}

/** Creates the database named in the URL when it does not exist yet (connecting to `postgres`, else `template1`, to do so); true when it made it. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const probe = new pg.Client({ connectionString: url, client_encoding: 'UTF8' });
  try {
    await probe.connect();
    await probe.end();
    return false;
  } catch (err) {
    await probe.end().catch(() => undefined);
    // Any other refusal (no server, wrong password) is the caller's to explain.
    if ((err as { code?: string }).code !== '3D000') throw err;
  }
  let lastErr: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    const admin = new URL(url);
    admin.pathname = `/${maintenance}`;
    const client = new pg.Client({ connectionString: admin.toString(), client_encoding: 'UTF8' });
    try {
      await client.connect();
    } catch (err) {
      lastErr = err;
      await client.end().catch(() => undefined);
      continue;
    }
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return false;
      await client.query(`create database "${name.replaceAll('"', '""')}"`);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === '42P04') return false; // created meanwhile by someone else
      if ((err as { code?: string }).code === '42501') {
        const role = decodeURIComponent(target.username) || 'this role';
        throw new DatabaseMissingError(
          `database "${name}" does not exist and ${role} may not create it: create it (createdb -O ${role} ${name}) or name an existing one in DATABASE_URL`,
        );
      }
      throw err;
    } finally {
      await client.end();
    }
  }
  throw lastErr;
}
