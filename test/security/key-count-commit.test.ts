// The key check's counter commits without waiting for the disk (services/auth/keys.ts, KEY_AND_COUNT), and
// only it: the setting must end with the statement's own transaction, or every order written afterwards on
// the same pooled connection could be lost in a crash after its 201.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openOrm } from '../../db/orm.js';
import { hashKey } from '../../domain/api-keys.js';
import { findKeyAndCount, KEY_AND_COUNT } from '../../services/auth/keys.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let orm: MikroORM;
let client: pg.Client;
let shop: TestStore;

beforeAll(async () => {
  // One connection: the statement and the checks after it run on the same backend.
  orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 1 });
  shop = await createTestStore(orm);
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await orm.close();
});

const setting = async (c: { query: pg.Client['query'] }) =>
  ((await c.query('show synchronous_commit')) as pg.QueryResult<{ synchronous_commit: string }>).rows[0]!.synchronous_commit;

describe("the key check's commit", () => {
  it('is asynchronous within its own transaction, and the session is back to synchronous after it', async () => {
    expect(await setting(client)).toBe('on');
    await client.query('begin');
    try {
      const { rows } = await client.query<{ key_count: number }>(KEY_AND_COUNT.text, [hashKey(shop.secret), '127.0.0.1']);
      expect(rows[0]!.key_count).toBeGreaterThanOrEqual(1);
      expect(await setting(client)).toBe('off');
      await client.query('commit');
    } catch (err) {
      // Its counter row stays locked until this transaction ends: the next test's key check would wait on it.
      await client.query('rollback');
      throw err;
    }
    expect(await setting(client)).toBe('on');
  });

  it('leaves the pooled connection committing synchronously for the statements after it', async () => {
    const hit = await findKeyAndCount(orm.em.fork(), hashKey(shop.secret), '127.0.0.1');
    expect(hit?.principal.storeId).toBe(shop.store.id);
    const pool = await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
    expect(await setting(pool)).toBe('on');
  });
});
