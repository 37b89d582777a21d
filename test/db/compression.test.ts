import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, startEmbeddedPostgres } from '../../dev/db/embedded.js';
import { migrate } from '../../db/orm.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { orderBody, ordersApi, sql } from '../orders/fixtures.js';

// Migration20261207140100: a big order's items and its events' snapshots are stored compressed with lz4
// (pglz cost about 0.7 ms of PostgreSQL's CPU per 200-item order), where the server has lz4.

let t: TestApp;
let s: TestStore;

beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
});
afterAll(async () => {
  await t?.close();
});

/** True when this PostgreSQL was built with lz4 (a column can be declared with it). */
async function serverHasLz4(): Promise<boolean> {
  try {
    await sql(t, 'select pg_column_compression(null::text)');
    await t.orm.em.fork().transactional(async (em) => {
      await em.execute('create temporary table lz4_probe (x text compression lz4) on commit drop');
    });
    return true;
  } catch {
    return false;
  }
}

describe('big order documents', () => {
  it('are stored with lz4: the items of a 200-item order and the snapshots of its events', async () => {
    const lz4 = await serverHasLz4();
    const items = Array.from({ length: 200 }, (_, i) => ({
      name: `Product ${i}`,
      sku: `SKU-${1000 + i}`,
      variant: i % 2 ? 'Size M' : 'Blue',
      image_url: `https://cdn.example/p/${i}.jpg`,
      quantity: 1,
      unit_price: 9.99,
    }));
    const res = await ordersApi(t, s.secret).post(orderBody({ items, totals: { total: 1998 }, payment: { status: 'paid' } }));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().order.id as string;

    const [order] = await sql<{ method: string | null }>(t, 'select pg_column_compression(items) as method from orders where id = ?', [id]);
    const events = await sql<{ type: string; method: string | null }>(
      t,
      'select type, pg_column_compression(payload) as method from order_events where order_id = ? order by type',
      [id],
    );
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid']);
    const expected = lz4 ? 'lz4' : 'pglz';
    expect(order!.method).toBe(expected);
    expect(events.map((e) => e.method)).toEqual([expected, expected]);
    // What this machine's server does is what CI checks: both kinds of server are named, so a silent pglz shows here.
    expect(lz4, 'this PostgreSQL has no lz4: the test ran against its pglz fallback').toBe(true);
  });

  it('read back whole: the order as sent', async () => {
    const items = Array.from({ length: 120 }, (_, i) => ({ name: `Tea ${i}`, quantity: 2, unit_price: 1.25 }));
    const res = await ordersApi(t, s.secret).post(orderBody({ items, totals: { total: 300 } }));
    expect(res.statusCode, res.body).toBe(201);
    const got = await ordersApi(t, s.secret).get(res.json().order.id);
    expect(got.json().order.items).toHaveLength(120);
    expect(got.json().order.items[119]).toMatchObject({ name: 'Tea 119', quantity: 2, unit_price: 1.25 });
  });
});

describe('on a PostgreSQL built without lz4', () => {
  // The embedded server a newcomer's `npm start` falls back to is such a build (its binaries have no lz4).
  it('the migrations still apply, and the documents stay pglz', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sc-no-lz4-'));
    const local = await startEmbeddedPostgres(dir, { port: 0 });
    try {
      const url = new URL(local.url);
      url.pathname = '/no_lz4';
      await ensureDatabase(url.toString());
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const probe = await client.query('create temporary table lz4_probe (x text compression lz4)').then(
          () => 'built with lz4',
          (err: { code?: string }) => err.code,
        );
        expect(probe, 'the embedded PostgreSQL has lz4 now: this test no longer covers the fallback').toBe('0A000');
        await migrate(url.toString());
        const { rows } = await client.query<{ column: string; compression: string }>(
          `select attrelid::regclass || '.' || attname as column, attcompression::text as compression from pg_attribute
           where (attrelid, attname) in (('orders'::regclass, 'items'), ('order_events'::regclass, 'payload')) order by 1`,
        );
        expect(rows).toEqual([
          { column: 'order_events.payload', compression: '' },
          { column: 'orders.items', compression: '' },
        ]);
        const { rows: applied } = await client.query(`select 1 from mikro_orm_migrations where name = 'Migration20261207140100'`);
        expect(applied).toHaveLength(1);
      } finally {
        await client.end();
      }
    } finally {
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
