// A connection key changes only its own shop's orders (issue 16, security review): PATCH and DELETE of a
// native order, an api order or another connected shop's order answer 404, as if absent, and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let seq = 0;
const post = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(key),
    payload: { external_id: `cs-${process.pid}-${++seq}`, totals: { total: 10 }, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().order as { id: string; version?: number; updated_at: string };
};
const patch = (key: string, id: string) =>
  t.request({
    method: 'PATCH',
    url: `/api/v1/orders/${id}`,
    headers: bearer(key),
    payload: { tracking: { number: 'HIJACK' }, comment: 'x' },
  });
const archive = (key: string, id: string) => t.request({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: bearer(key) });

describe('a connection key is limited to its own shop orders', () => {
  it('answers 404 for an api order and another connected shop order, and changes neither', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shopA = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://a-${process.pid}-${Date.now()}.example`);
    const shopB = await createTestConnection(t.orm, s.store.id, 'platform_b', `https://b-${process.pid}-${Date.now()}.example`);
    const own = await post(shopA.key);
    const apiOrder = await post(s.secret);
    const other = await post(shopB.key);
    for (const victim of [apiOrder, other]) {
      const p = await patch(shopA.key, victim.id);
      expect(p.statusCode).toBe(404);
      expect(p.json().error.code).toBe('not_found');
      expect((await archive(shopA.key, victim.id)).statusCode).toBe(404);
      const [row] = await t.orm.em
        .fork()
        .execute<{ archived: boolean; tracking_number: string | null }[]>('select archived, tracking_number from orders where id = ?', [
          victim.id,
        ]);
      expect(row).toEqual({ archived: false, tracking_number: null });
    }
    // Its own order, and the store's secret key on any order, still work.
    expect((await patch(shopA.key, own.id)).statusCode).toBe(200);
    expect((await archive(shopA.key, own.id)).statusCode).toBe(200);
    expect((await patch(s.secret, other.id)).statusCode).toBe(200);
  });

  it('answers 404 for a native order (placed through checkout)', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://n-${process.pid}-${Date.now()}.example`);
    const own = await post(shop.key);
    // A native order: the same row as a placed checkout, source native, no connection.
    const [native] = await t.orm.em.fork().execute<{ id: string }[]>(
      `insert into orders select (jsonb_populate_record(null::orders, to_jsonb(o) || jsonb_build_object('id', gen_random_uuid(), 'origin', 'native',
           'source', 'native', 'connection_id', null, 'external_id', null, 'order_number', 'N-1'))).* from orders o where id = ? returning id`,
      [own.id],
    );
    expect((await patch(shop.key, native!.id)).statusCode).toBe(404);
    expect((await archive(shop.key, native!.id)).statusCode).toBe(404);
  });
});
