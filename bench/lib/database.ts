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
