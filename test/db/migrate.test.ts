// migrate(): the whole schema on an empty database, the rest on a partly migrated one, and nothing (at once,
// without waiting for the migrations' advisory lock) on a current one, as at every start of the API and worker.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../dev/db/embedded.js';
import { migrate, openOrm } from '../../db/orm.js';

/** The migrations on disk, by file name: the expected list, not read from the code under test. */
const ON_DISK = readdirSync(new URL('../../db/migrations/', import.meta.url))
  .filter((f) => /^Migration\d+\.ts$/.test(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
// db/orm.ts's lock: a number of the migrations' own, held by the session that migrates.
const MIGRATION_LOCK = 727_001;

const made: string[] = [];
async function emptyDatabase(): Promise<string> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${url.pathname.slice(1)}_mig_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(url.toString());
  made.push(url.toString());
  return url.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const appliedNames = (url: string) =>
  withClient(url, async (c) =>
    (await c.query<{ name: string }>('select name from mikro_orm_migrations order by name')).rows.map((r) => r.name),
  );

afterAll(async () => {
  const admin = new URL(inject('databaseUrl'));
  admin.pathname = '/postgres';
  await withClient(admin.toString(), async (c) => {
    for (const url of made) await c.query(`drop database if exists "${new URL(url).pathname.slice(1)}" with (force)`);
  });
});

describe('migrate', () => {
  it('applies every migration to an empty database, and a second run adds nothing', async () => {
    const url = await emptyDatabase();
    await migrate(url);
    expect(await appliedNames(url)).toEqual(ON_DISK);
    await migrate(url);
    expect(await appliedNames(url)).toEqual(ON_DISK);
  });

  it('leaves a current schema at once, without waiting for another process holding the migrations lock', async () => {
    const url = await emptyDatabase();
    await migrate(url);
    await withClient(url, async (holder) => {
      await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const started = Date.now();
      const outcome = await Promise.race([
        migrate(url).then(() => 'done'),
        new Promise((resolve) => setTimeout(() => resolve('waited for the lock'), 3000)),
      ]);
      expect(outcome).toBe('done');
      expect(Date.now() - started).toBeLessThan(3000);
    });
  });

  it('applies the rest to a partly migrated database, waiting for the lock while another process migrates', async () => {
    const url = await emptyDatabase();
    const half = ON_DISK[Math.floor(ON_DISK.length / 2)]!;
    const orm = await openOrm({ databaseUrl: url, poolMax: 1, queryTimeoutMs: 0 });
    try {
      await orm.migrator.up({ to: half });
    } finally {
      await orm.close();
    }
    expect(await appliedNames(url)).toEqual(ON_DISK.slice(0, ON_DISK.indexOf(half) + 1));
    await withClient(url, async (holder) => {
      await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      let finished = false;
      const running = migrate(url).then(() => (finished = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(finished).toBe(false);
      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await running;
    });
    expect(await appliedNames(url)).toEqual(ON_DISK);
  });
});
