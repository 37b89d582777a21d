// What a connection key may change follows the spec's key table (issue 23 item 7): it holds orders:write, so
// PATCH and DELETE reach every order of its store; the one refusal is cancelling an outside platform's order
// that is not its own (409 conflict, nothing changes). Narrowing a key is the owner's choice of scopes.
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
    payload: { tracking: { number: 'SHIPPED-1' }, comment: 'x' },
  });
const archive = (key: string, id: string) => t.request({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: bearer(key) });

describe('a connection key changes orders as the spec’s key table says', () => {
  it('changes and archives an api order and another connected shop’s order of its store', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shopA = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://a-${process.pid}-${Date.now()}.example`);
    const shopB = await createTestConnection(t.orm, s.store.id, 'platform_b', `https://b-${process.pid}-${Date.now()}.example`);
    const apiOrder = await post(s.secret);
    const other = await post(shopB.key);
    for (const order of [apiOrder, other]) {
      const p = await patch(shopA.key, order.id);
      expect(p.statusCode, p.body).toBe(200);
      expect(p.json().order.tracking.number).toBe('SHIPPED-1');
      expect((await archive(shopA.key, order.id)).json()).toEqual({ id: order.id, archived: true });
    }
  });

  it('answers 409 when it cancels another connected shop’s order, and nothing changes', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shopA = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://c-${process.pid}-${Date.now()}.example`);
    const shopB = await createTestConnection(t.orm, s.store.id, 'platform_b', `https://d-${process.pid}-${Date.now()}.example`);
    const other = await post(shopB.key, { status: 'open' });
    const before = await t.orm.em.fork().execute('select * from orders where id = ?', [other.id]);
    const res = await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${other.id}`,
      headers: bearer(shopA.key),
      payload: { status: 'cancelled', comment: 'not mine' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'conflict', param: 'status' });
    expect(await t.orm.em.fork().execute('select * from orders where id = ?', [other.id])).toEqual(before);
  });

  it('may cancel an api order and a native order of its store (the 409 is only for outside orders)', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://n-${process.pid}-${Date.now()}.example`);
    const own = await post(shop.key);
    const apiOrder = await post(s.secret, { status: 'confirmed' });
    // A native order: the same row as a placed checkout, source native, no connection.
    const [native] = await t.orm.em.fork().execute<{ id: string }[]>(
      `insert into orders select (jsonb_populate_record(null::orders, to_jsonb(o) || jsonb_build_object('id', gen_random_uuid(), 'origin', 'native',
           'source', 'native', 'connection_id', null, 'external_id', null, 'order_number', 'N-1'))).* from orders o where id = ? returning id`,
      [own.id],
    );
    for (const id of [apiOrder.id, native!.id]) {
      const res = await t.request({
        method: 'PATCH',
        url: `/api/v1/orders/${id}`,
        headers: bearer(shop.key),
        payload: { status: 'cancelled' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().order.status).toBe('cancelled');
    }
  });
});
