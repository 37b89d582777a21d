import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { eventCount, orderBody, orderCount, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
});
afterAll(() => t.close());

describe('POST /orders creates or updates by external_id', () => {
  it('answers 201 with the order and action created', async () => {
    const body = orderBody({ number: '1001' });
    const res = await api.post(body);
    expect(res.statusCode, res.body).toBe(201);
    const { order, action } = res.json();
    expect(action).toBe('created');
    expect(order).toMatchObject({ object: 'order', external_id: body.external_id, order_number: '1001', source: 'api', archived: false });
    expect(order.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(order.tracking.page_url).toMatch(/^http:\/\/127\.0\.0\.1:3999\//);
  });

  it('answers created and updated with the order as stored: the same object a GET reads afterwards', async () => {
    // A COD order with a customer, items, money and a risk flag: every part of the order object.
    const body = orderBody({
      number: 'A-7',
      payment: { is_cod: true, method: 'cod' },
      totals: { total: 512.3, shipping: 7.25, discount: 1.5 },
    });
    const created = await api.post(body);
    expect(created.statusCode, created.body).toBe(201);
    const read = await api.get(created.json().order.id);
    expect(created.json().order).toEqual(read.json().order);
    const updated = await api.post({ ...body, note: 'Ring twice', status: 'shipped' });
    expect(updated.json().action).toBe('updated');
    const readAgain = await api.get(created.json().order.id);
    expect(updated.json().order).toEqual(readAgain.json().order);
    expect(readAgain.json().order).toMatchObject({ note: 'Ring twice', status: 'shipped', created_at: read.json().order.created_at });
  });

  it('answers the same body again with 200 unchanged and writes nothing', async () => {
    const body = orderBody();
    const first = (await api.post(body)).json().order;
    const events = await eventCount(t, first.id);
    const [before] = await sql<{ version: number }>(t, 'select version from orders where id = ?', [first.id]);
    const again = await api.post(body);
    expect(again.statusCode).toBe(200);
    expect(again.json().action).toBe('unchanged');
    expect(again.json().order.id).toBe(first.id);
    expect(again.json().order.updated_at).toBe(first.updated_at);
    expect(await eventCount(t, first.id)).toBe(events);
    const [after] = await sql<{ version: number }>(t, 'select version from orders where id = ?', [first.id]);
    expect(after!.version).toBe(before!.version);
  });

  it('answers a changed body with 200 updated on the same order', async () => {
    const body = orderBody();
    const first = (await api.post(body)).json().order;
    const res = await api.post({ ...body, note: 'Leave at the door' });
    expect(res.statusCode).toBe(200);
    expect(res.json().action).toBe('updated');
    expect(res.json().order).toMatchObject({ id: first.id, note: 'Leave at the door' });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(1);
  });

  it('leaves the order unchanged and writes nothing when updated_at is older than the held copy', async () => {
    const body = orderBody({ updated_at: '2026-01-02T10:00:00Z' });
    const first = (await api.post(body)).json().order;
    const events = await eventCount(t, first.id);
    const res = await api.post({ ...body, updated_at: '2026-01-01T10:00:00Z', note: 'older copy', status: 'cancelled' });
    expect(res.statusCode).toBe(200);
    expect(res.json().action).toBe('unchanged');
    expect(res.json().order).toMatchObject({ note: null, status: 'pending', updated_at: first.updated_at });
    expect(await eventCount(t, first.id)).toBe(events);
    const newer = await api.post({ ...body, updated_at: '2026-01-03T10:00:00Z', note: 'newer copy' });
    expect(newer.json()).toMatchObject({ action: 'updated', order: { note: 'newer copy' } });
  });
});

describe('POST /orders skips test and draft-type orders', () => {
  it('skips test: true with a reason, a null order, and stores nothing', async () => {
    const body = orderBody({ test: true });
    const res = await api.post(body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ order: null, action: 'skipped', reason: expect.any(String) });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(0);
  });

  it.each(['checkout-draft', 'auto-draft', 'draft', 'trash'])('skips status %s and stores nothing', async (status) => {
    const body = orderBody({ status });
    const res = await api.post(body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ order: null, action: 'skipped', reason: expect.stringContaining(status) });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(0);
  });

  it('skips the prefixed wc-checkout-draft from a platform_a connection', async () => {
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const body = orderBody({ status: 'wc-checkout-draft' });
    const res = await ordersApi(t, conn.key).post(body);
    expect(res.json()).toMatchObject({ order: null, action: 'skipped' });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(0);
  });
});

describe('POST /orders with deleted: true archives', () => {
  it('archives the copy; it leaves GET /orders and stays with include_archived=true', async () => {
    const body = orderBody();
    const { order } = (await api.post(body)).json();
    const res = await api.post({ ...body, deleted: true });
    expect(res.json()).toMatchObject({ action: 'updated', order: { id: order.id, archived: true } });
    const live = await api.list(`external_id=${body.external_id}`);
    expect(live.json().data).toEqual([]);
    const all = await api.list(`external_id=${body.external_id}&include_archived=true`);
    expect(all.json().data.map((o: { id: string }) => o.id)).toEqual([order.id]);
    expect((await api.get(order.id)).json().order.archived).toBe(true);
  });

  it('stores a first copy sent with deleted: true as archived', async () => {
    const res = await api.post(orderBody({ deleted: true }));
    expect(res.statusCode).toBe(201);
    expect(res.json().order.archived).toBe(true);
  });
});
