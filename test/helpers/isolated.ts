import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from '../../dev/db/embedded.js';
import { migrate } from '../../db/orm.js';

/**
 * A database of its own on the run's PostgreSQL server, migrated: for tests that run their own worker
 * and relay, whose outbox must not be drained by the shared worker.
 */
export async function createIsolatedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${url.pathname.slice(1)}_iso_${randomBytes(3).toString('hex')}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  return {
    url: databaseUrl,
    async drop() {
      const admin = new URL(databaseUrl);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
      await client.end();
    },
  };
}
