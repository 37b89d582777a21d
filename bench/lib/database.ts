import { resolve } from 'node:path';
import pg from 'pg';
import { ensureDatabase, startEmbeddedPostgres } from '../../dev/db/embedded.js';
import { migrate } from '../../db/orm.js';
import { onCleanup } from './cleanup.js';
import { repoRoot } from './processes.js';

/**
 * A fresh, migrated database `sc_bench_<time>` for this run: on the DATABASE_URL server when set,
 * else on an embedded PostgreSQL; dropped (and the embedded server stopped) at cleanup.
 */
export async function freshDatabase(log: (line: string) => void): Promise<string> {
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    log('no DATABASE_URL: starting embedded PostgreSQL under .data/bench-pg …');
    const local = await startEmbeddedPostgres(resolve(repoRoot, '.data', 'bench-pg'), { port: 0 });
    onCleanup('embedded PostgreSQL', () => local.stop());
    serverUrl = local.url;
  }
  const url = new URL(serverUrl);
  url.pathname = `/sc_bench_${Date.now()}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  onCleanup(`database ${url.pathname.slice(1)}`, () => dropDatabase(databaseUrl));
  await migrate(databaseUrl);
  log(`database ${url.pathname.slice(1)} created and migrated`);
  return databaseUrl;
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Writes every dirty page to disk now (CHECKPOINT) and answers how long it took, or why it could not.
 * Run before each scenario and after a bulk seed: otherwise a checkpoint started by the WAL of the scenario
 * before (or of the seed: api-mixed's million orders wrote ~540 MB) writes its pages back during the
 * measurement, and commits wait behind that I/O. Needs a superuser or the pg_checkpoint role; without one the
 * run goes on and its log says so.
 */
export async function checkpoint(pool: pg.Pool): Promise<string> {
  const t0 = Date.now();
  try {
    await pool.query('checkpoint');
    return `checkpoint in ${Date.now() - t0} ms`;
  } catch (err) {
    return `no checkpoint (${(err as Error).message})`;
  }
}
