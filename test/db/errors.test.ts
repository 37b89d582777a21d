// db/errors.ts against real PostgreSQL errors: each SQLSTATE a client may cause maps to the spec's error,
// raw from pg and wrapped by MikroORM alike, with a message that reveals no SQL. The HTTP side (both error
// handlers) is in test/api/errors.test.ts.
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { databaseError, sqlState } from '../../db/errors.js';
import { openOrm } from '../../db/orm.js';
import { createStore } from '../../services/stores.js';
import { failureOf, FAILING_STATEMENTS, type FailingState } from '../helpers/sql-failures.js';

let orm: MikroORM;
const clients: pg.Client[] = [];
const scratch = `errors_test_${process.pid}`;
beforeAll(async () => {
  orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 3 });
  await createStore(orm.em.fork(), { name: 'Errors Test' });
  for (let i = 0; i < 2; i++) {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    clients.push(client);
  }
  await clients[0]!.query(`create table ${scratch} (id int primary key, v int not null)`);
  await clients[0]!.query(`insert into ${scratch} values (1, 0), (2, 0)`);
});
afterAll(async () => {
  await clients[0]?.query(`drop table if exists ${scratch}`);
  for (const client of clients) await client.end();
  await orm.close();
});

// Words that would tell a client about our SQL: tables, constraints, columns, the failing values.
const SQL_WORDS =
  /stores|api_keys|orders|slug|constraint|unique|foreign|uuid|timestamptz|not-a-uuid|0000-01-01|statement_timeout|pg_sleep|serializ|deadlock|sqlstate|\b\d{5}\b/i;

const EXPECTED: Record<FailingState, { code: string; status: number; retryAfter?: string }> = {
  '23505': { code: 'conflict', status: 409 },
  '23503': { code: 'unprocessable', status: 422 },
  '22P02': { code: 'invalid_request', status: 400 },
  '22008': { code: 'invalid_request', status: 400 },
  '40001': { code: 'unavailable', status: 503, retryAfter: '1' },
  '57014': { code: 'unavailable', status: 503, retryAfter: '5' },
};

describe('each SQLSTATE a client may cause maps to the spec’s error, naming nothing of our SQL', () => {
  it.each(Object.keys(EXPECTED) as FailingState[])('%s', async (state) => {
    const err = await failureOf(() => FAILING_STATEMENTS[state](orm.em.fork()));
    expect(sqlState(err)).toBe(state);
    const mapped = databaseError(err)!;
    expect(mapped).toMatchObject({ code: EXPECTED[state].code, status: EXPECTED[state].status });
    expect(mapped.headers?.['retry-after']).toBe(EXPECTED[state].retryAfter);
    expect(mapped.message).not.toMatch(SQL_WORDS);
  });

  it('a pg error that MikroORM did not wrap (a bare pg client) maps the same', async () => {
    const err = await failureOf(() => clients[0]!.query(`select 'not-a-uuid'::uuid`));
    expect(err).toBeInstanceOf(pg.DatabaseError);
    expect(databaseError(err)).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('a true serialization failure (write skew between two SERIALIZABLE transactions) is 503 with Retry-After', async () => {
    const [a, b] = clients as [pg.Client, pg.Client];
    await a.query('begin isolation level serializable');
    await b.query('begin isolation level serializable');
    try {
      // Each reads what the other writes: no serial order explains both commits.
      await a.query(`select sum(v) from ${scratch}`);
      await b.query(`select sum(v) from ${scratch}`);
      await a.query(`update ${scratch} set v = v + 1 where id = 1`);
      await b.query(`update ${scratch} set v = v + 1 where id = 2`);
      await a.query('commit');
      const err = await failureOf(() => b.query('commit'));
      expect(sqlState(err)).toBe('40001');
      expect(databaseError(err)).toMatchObject({ code: 'unavailable', status: 503, headers: { 'retry-after': '1' } });
    } finally {
      await a.query('rollback').catch(() => undefined);
      await b.query('rollback').catch(() => undefined);
    }
  });

  it('a true deadlock is 503 with Retry-After, like a serialization failure', async () => {
    const [a, b] = clients as [pg.Client, pg.Client];
    await a.query('begin');
    await b.query('begin');
    try {
      await a.query(`update ${scratch} set v = v where id = 1`);
      await b.query(`update ${scratch} set v = v where id = 2`);
      // Each now waits for the other's row; PostgreSQL breaks the cycle by failing one of them.
      const results = await Promise.allSettled([
        a.query(`update ${scratch} set v = v where id = 2`),
        b.query(`update ${scratch} set v = v where id = 1`),
      ]);
      const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(sqlState(failed.reason)).toBe('40P01');
      expect(databaseError(failed.reason)).toMatchObject({ code: 'unavailable', status: 503, headers: { 'retry-after': '1' } });
    } finally {
      await a.query('rollback');
      await b.query('rollback');
    }
  });

  it('a statement cancelled by an operator (pg_cancel_backend) is 503 with Retry-After, like a timeout', async () => {
    const [a, b] = clients as [pg.Client, pg.Client];
    const sleep = `select pg_sleep(5) /* ${scratch} cancel */`;
    const sleeping = failureOf(() => a.query(sleep));
    // The sleep may not have reached the server yet: cancel it once it shows up.
    for (let cancelled = false; !cancelled;) {
      const { rows } = await b.query<{ ok: boolean }>(
        'select pg_cancel_backend(pid) as ok from pg_stat_activity where query = $1 and datname = current_database()',
        [sleep],
      );
      cancelled = rows.some((r) => r.ok);
    }
    const err = await sleeping;
    expect(sqlState(err)).toBe('57014');
    expect(databaseError(err)).toMatchObject({ code: 'unavailable', status: 503, headers: { 'retry-after': '5' } });
  });

  it('PostgreSQL unreachable is 503 with Retry-After', async () => {
    const down = await openOrm({ databaseUrl: 'postgres://postgres@127.0.0.1:1/unreachable', poolMax: 1 });
    try {
      const err = await failureOf(() => down.em.fork().execute('select 1'));
      expect(databaseError(err)).toMatchObject({ code: 'unavailable', status: 503, headers: { 'retry-after': '5' } });
    } finally {
      await down.close();
    }
  });

  it('a failure that is ours alone (a missing table, a syntax error, a required column left null) maps to nothing: a logged 500', async () => {
    for (const statement of ['select * from no_such_table_xyz', 'selec 1', `insert into ${scratch} values (3, null)`]) {
      const err = await failureOf(() => orm.em.fork().execute(statement));
      expect(sqlState(err)).toMatch(/^[0-9A-Z]{5}$/);
      expect(databaseError(err)).toBeNull();
    }
    expect(databaseError(new Error('plain'))).toBeNull();
  });
});
