// The API's fixed-size pool (db/orm.ts, fixedPool and fillPool): every connection is opened at start and
// none is closed while idle, where a default pool closes idle connections after 10 s. Counted by
// PostgreSQL itself (pg_stat_activity, by application name), not by the pool.
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { fillPool, openOrm } from '../../db/orm.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longer than pg-pool's idle timeout (10 s), after which a default pool closes an idle connection. */
const IDLE_WAIT_MS = 11_500;

let watcher: pg.Client;
const opened: MikroORM[] = [];

/** An ORM whose connections PostgreSQL lists under their own application name. */
async function ormNamed(name: string, fixedPool: boolean): Promise<MikroORM> {
  const orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 3, fixedPool, applicationName: name });
  opened.push(orm);
  return orm;
}

async function backends(name: string): Promise<number> {
  const { rows } = await watcher.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = $1', [
    name,
  ]);
  return rows[0]!.n;
}

beforeAll(async () => {
  watcher = new pg.Client({ connectionString: inject('databaseUrl') });
  await watcher.connect();
});
afterAll(async () => {
  for (const orm of opened) await orm.close();
  await watcher.end();
});

describe('a fixed-size pool', () => {
  it('opens every connection at once and keeps them open while idle; a default pool closes them', async () => {
    const fixedName = `pool_fixed_${process.pid}`;
    const defaultName = `pool_default_${process.pid}`;
    const fixed = await ormNamed(fixedName, true);
    const growing = await ormNamed(defaultName, false);

    expect(await fillPool(fixed)).toBe(3);
    expect(await fillPool(growing)).toBe(3);
    expect(await backends(fixedName)).toBe(3);
    expect(await backends(defaultName)).toBe(3);

    await sleep(IDLE_WAIT_MS);
    expect(await backends(fixedName)).toBe(3);
    expect(await backends(defaultName)).toBe(0);
  }, 30_000);

  it('serves statements on the connections it opened', async () => {
    const name = `pool_serves_${process.pid}`;
    const orm = await ormNamed(name, true);
    await fillPool(orm);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => orm.em.fork().getConnection().execute<{ n: number }[]>(`select ${i} as n`)),
    );
    expect(answers.map((r) => r[0]!.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await backends(name)).toBe(3);
  });
});
