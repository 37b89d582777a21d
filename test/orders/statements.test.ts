import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { orderBody, ordersApi, sql } from './fixtures.js';

// Issue 25: an order write is at most 3 SQL statements (BEGIN and COMMIT count), the API key check and
// its rate-limit counter included. Counted where they leave the API: every query the pg client sends.

/** The statements per order write the bench notes publish (bench/lib/upsert-scenario.ts). */
const MOST = 3;

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let sent: string[] | null = null;
let restore: () => void;

beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  // The pool's own client class (the one MikroORM and db/prepared.ts send every statement through).
  const pool = (await (t.orm.em.getConnection() as PostgreSqlConnection).getNativeClient()) as unknown as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } };
  };
  const proto = pool.Client.prototype;
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (sent && text !== undefined) sent.push(text.trim().split(/\s+/).slice(0, 6).join(' '));
    return query.apply(this, args);
  };
  restore = () => {
    proto.query = query;
  };
});
afterAll(async () => {
  restore?.();
  await t?.close();
});

/** The statements sent while `call` runs. */
async function statementsOf(call: () => Promise<{ statusCode: number }>, status: number): Promise<string[]> {
  sent = [];
  try {
    const answer = await call();
    expect(answer.statusCode).toBe(status);
    return sent;
  } finally {
    sent = null;
  }
}

describe('one order write is at most 3 SQL statements', () => {
  // Cash on delivery with a phone: the risk flags read the phone's history too.
  const body = orderBody({
    payment: { is_cod: true, method: 'cod', method_title: 'Cash on delivery' },
    items: [
      { name: 'Tea', quantity: 3, unit_price: 19.99, sku: 'TEA-1' },
      { name: 'Cup', quantity: 1, unit_price: 4.5, sku: 'CUP-1' },
      { name: 'Pot', quantity: 1, unit_price: 25, sku: 'POT-1' },
    ],
    totals: { total: 89.47, shipping: 0, discount: 0 },
  });

  it('a new 3-item order', async () => {
    const statements = await statementsOf(() => api.post(body), 201);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(MOST);
  });

  it('an update of it', async () => {
    const statements = await statementsOf(() => api.post({ ...body, note: 'ring twice' }), 200);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(MOST);
  });

  it('the same order again (unchanged) writes nothing but the key check', async () => {
    const statements = await statementsOf(() => api.post({ ...body, note: 'ring twice' }), 200);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(2);
  });
});

describe('an order no risk flag needs a phone history for is written as new without reading first', () => {
  // Paid by card: no cash-on-delivery flags, so nothing is read before the write.
  const body = orderBody({ payment: { is_cod: false, method: 'stripe', method_title: 'Credit card', status: 'paid' } });
  let orderId = '';
  const eventsOf = (id: string) =>
    sql<{ type: string }>(t, 'select type from order_events where order_id = ? order by created_at, type', [id]).then((r) =>
      r.map((e) => e.type),
    );

  it('a new order: the key check and one write, with its events and its history line', async () => {
    let answer: { statusCode: number; json(): { action: string; order: { id: string; version?: number } } } | undefined;
    const statements = await statementsOf(async () => (answer = await api.post(body)), 201);
    expect(statements.length, statements.join('\n')).toBe(2);
    expect(answer!.json().action).toBe('created');
    orderId = answer!.json().order.id;
    expect(await eventsOf(orderId)).toEqual(['order.created', 'order.paid']);
    const history = await sql<{ status: string }>(t, 'select status from order_status_history where order_id = ?', [orderId]);
    expect(history.map((h) => h.status)).toEqual(['pending']);
  });

  it('an update: the write finds the held copy instead, and the update is written after it (3 statements)', async () => {
    const before = await sql<{ version: number; created_at: Date }>(t, 'select version, created_at from orders where id = ?', [orderId]);
    let answer: { json(): { action: string; order: { id: string; note: string | null } } } | undefined;
    const statements = await statementsOf(async () => (answer = await api.post({ ...body, note: 'ring twice' })) as never, 200);
    expect(statements.length, statements.join('\n')).toBe(3);
    expect(answer!.json()).toMatchObject({ action: 'updated', order: { id: orderId, note: 'ring twice' } });
    const [after] = await sql<{ version: number; created_at: Date }>(t, 'select version, created_at from orders where id = ?', [orderId]);
    expect(after!.version).toBe(before[0]!.version + 1);
    expect(after!.created_at).toEqual(before[0]!.created_at);
    expect(await eventsOf(orderId)).toEqual(['order.created', 'order.paid', 'order.updated']);
    expect(await sql(t, 'select 1 from orders where store_id = ? and external_id = ?', [s.store.id, body.external_id])).toHaveLength(1);
  });

  it('the same order again: unchanged, nothing written (2 statements)', async () => {
    let answer: { json(): { action: string } } | undefined;
    const statements = await statementsOf(async () => (answer = await api.post({ ...body, note: 'ring twice' })) as never, 200);
    expect(statements.length, statements.join('\n')).toBe(2);
    expect(answer!.json().action).toBe('unchanged');
    expect(await eventsOf(orderId)).toEqual(['order.created', 'order.paid', 'order.updated']);
  });
});
