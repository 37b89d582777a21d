import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

describe('orders smoke', () => {
  it('creates, repeats, updates, lists, patches and archives', async () => {
    const body = { external_id: 'A-1', number: '1001', totals: { total: 59.97 }, status: 'processing', customer: { name: 'Ali <b>B</b>', phone: '+212612345678', country: 'MA' }, payment: { is_cod: true }, items: [{ name: 'Tea', quantity: 3, unit_price: 19.99 }] };
    const first = await t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload: body });
    expect(first.statusCode, first.body).toBe(201);
    console.log(JSON.stringify(first.json(), null, 1));
    const again = await t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload: body });
    expect(again.statusCode).toBe(200);
    expect(again.json().action).toBe('unchanged');
    const upd = await t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload: { ...body, status: 'shipped' } });
    expect(upd.json().action).toBe('updated');
    const list = await t.request({ method: 'GET', url: '/api/v1/orders?limit=1', headers: bearer(s.secret) });
    expect(list.json().data).toHaveLength(1);
    const id = first.json().order.id;
    const patch = await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(s.secret), payload: { status: 'completed', comment: 'done' } });
    expect(patch.statusCode, patch.body).toBe(200);
    const del = await t.request({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: bearer(s.secret) });
    expect(del.json()).toEqual({ id, archived: true });
    const batch = await t.request({ method: 'POST', url: '/api/v1/orders/batch', headers: bearer(s.secret), payload: { orders: [body, { external_id: 'x' }, { ...body, external_id: 'B-2', test: true }] } });
    console.log(batch.body);
    const events = await t.orm.em.fork().execute('select type, backfill from order_events order by created_at');
    console.log(events);
  });
});
