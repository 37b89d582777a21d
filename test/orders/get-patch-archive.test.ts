import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES, ORDER_TRANSITIONS } from '../../domain/order-status.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { errorOf, orderBody, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let otherStore: ReturnType<typeof ordersApi>;
let otherOrderId: string;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  otherStore = ordersApi(t, (await createTestStore(t.orm)).secret);
  otherOrderId = (await otherStore.post(orderBody())).json().order.id;
});
afterAll(() => t.close());

const create = async (client: ReturnType<typeof ordersApi>, body: Record<string, unknown> = {}) =>
  (await client.post(orderBody(body))).json().order;
const malformedAndForeign = () => [randomUUID(), 'abc', otherOrderId];

describe('GET /orders/{id}', () => {
  it('returns {order}', async () => {
    const order = await create(api);
    const res = await api.get(order.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ order });
  });

  it('answers 404 for an unknown uuid, a malformed id and another store’s order', async () => {
    for (const id of malformedAndForeign()) expect(errorOf(await api.get(id))).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('PATCH /orders/{id} moves status only along the documented transitions', () => {
  it('allows exactly the transitions of the table (and the same status), answering 409 for every other', async () => {
    const pairs = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as const));
    const created = (await api.batch(pairs.map(([from]) => orderBody({ status: from })))).json().results;
    for (const [i, [from, to]] of pairs.entries()) {
      const res = await api.patch(created[i].id, { status: to });
      const allowed = from === to || ORDER_TRANSITIONS[from].includes(to);
      expect({ from, to, status: res.statusCode }).toEqual({ from, to, status: allowed ? 200 : 409 });
      expect((await api.get(created[i].id)).json().order.status).toBe(allowed ? to : from);
    }
  });

  it('refuses completed → pending with 409 conflict and changes nothing', async () => {
    const order = await create(api, { status: 'completed' });
    expect(errorOf(await api.patch(order.id, { status: 'pending', comment: 'undo' }))).toMatchObject({ status: 409, code: 'conflict' });
    expect((await api.get(order.id)).json().order).toEqual(order);
    expect(await sql(t, 'select 1 from order_status_history where order_id = ? and comment is not null', [order.id])).toEqual([]);
  });
});

describe('PATCH /orders/{id} sets tracking and a comment, and keeps a status history', () => {
  it('stores tracking number, courier and url', async () => {
    const order = await create(api, { status: 'confirmed' });
    const tracking = { number: ' AWB-1 ', courier: 'Amana', url: 'https://track.example/AWB-1' };
    const res = await api.patch(order.id, { status: 'shipped', tracking });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().order.tracking).toMatchObject({ number: 'AWB-1', courier: 'Amana', url: 'https://track.example/AWB-1' });
    const courierOnly = await api.patch(order.id, { tracking: { courier: 'CTM' } });
    expect(courierOnly.json().order.tracking).toMatchObject({ number: 'AWB-1', courier: 'CTM' });
  });

  it('writes a history row (status, comment, who, when) for each status change and comment', async () => {
    const order = await create(api, { status: 'confirmed' });
    await api.patch(order.id, { status: 'shipped', comment: 'Left the warehouse' });
    await api.patch(order.id, { comment: 'Customer called' });
    await api.patch(order.id, { status: 'completed' });
    const rows = await sql<{ status: string; comment: string | null; actor: string; created_at: Date }>(
      t,
      'select status, comment, actor, created_at from order_status_history where order_id = ? order by id',
      [order.id],
    );
    expect(rows.map((r) => [r.status, r.comment])).toEqual([
      ['confirmed', null],
      ['shipped', 'Left the warehouse'],
      ['shipped', 'Customer called'],
      ['completed', null],
    ]);
    expect(rows.every((r) => r.actor.startsWith('key:') && !Number.isNaN(new Date(r.created_at).getTime()))).toBe(true);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const order = await create(api);
    expect(errorOf(await api.patch(order.id, { status: 'bogus' }))).toEqual({ status: 400, code: 'invalid_request', param: 'status' });
    expect(errorOf(await api.patch(order.id, { tracking: { url: 'not a url' } }))).toEqual({
      status: 400,
      code: 'invalid_request',
      param: 'tracking.url',
    });
    expect(errorOf(await api.patch(order.id, { tracking: { url: 'javascript:alert(1)' } }))).toEqual({
      status: 400,
      code: 'invalid_request',
      param: 'tracking.url',
    });
    expect(errorOf(await api.patch(order.id, { tracking: { number: 5 } }))).toEqual({
      status: 400,
      code: 'invalid_request',
      param: 'tracking.number',
    });
    expect(errorOf(await api.patch(order.id, { comment: ['x'] }))).toEqual({ status: 400, code: 'invalid_request', param: 'comment' });
  });

  it('answers 404 for an unknown, malformed or foreign id', async () => {
    for (const id of malformedAndForeign()) expect(errorOf(await api.patch(id, { comment: 'x' }))).toMatchObject({ status: 404 });
  });

  it('writes nothing for a patch that changes nothing (same status, same tracking, blank comment)', async () => {
    const order = await create(api, { status: 'confirmed', payment: { is_cod: true }, tracking: { number: null, courier: 'Amana' } });
    for (const patch of [{}, { status: 'confirmed' }, { tracking: { courier: 'Amana' } }, { comment: '  ' }]) {
      const res = await api.patch(order.id, patch);
      expect(res.statusCode).toBe(200);
      expect(res.json().order).toEqual(order);
    }
    expect(await sql(t, 'select type from order_events where order_id = ?', [order.id])).toEqual([{ type: 'order.created' }]);
  });
});

describe('only an outside order’s own connection key may cancel it', () => {
  it('answers 409 to the store’s secret key and changes nothing', async () => {
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const order = await create(ordersApi(t, conn.key), { status: 'processing' });
    const res = await api.patch(order.id, { status: 'cancelled', comment: 'customer asked' });
    expect(errorOf(res)).toMatchObject({ status: 409, code: 'conflict' });
    expect((await api.get(order.id)).json().order).toEqual(order);
    // Other changes from the secret key stay allowed.
    expect((await api.patch(order.id, { status: 'shipped' })).statusCode).toBe(200);
  });

  it('answers 409 to another connected shop’s key of the same store and changes nothing (the spec’s cancel rule)', async () => {
    const own = await createTestConnection(t.orm, s.store.id, 'platform_b', 'https://b1.example');
    const stranger = await createTestConnection(t.orm, s.store.id, 'platform_b', 'https://b2.example');
    const order = await create(ordersApi(t, own.key), { status: 'open' });
    const strangerApi = ordersApi(t, stranger.key);
    expect((await strangerApi.get(order.id)).statusCode).toBe(200);
    expect(errorOf(await strangerApi.patch(order.id, { status: 'cancelled', comment: 'x' }))).toMatchObject({
      status: 409,
      code: 'conflict',
      param: 'status',
    });
    expect((await api.get(order.id)).json().order).toEqual(order);
  });

  it('lets the order’s own connection key cancel it', async () => {
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const shop = ordersApi(t, conn.key);
    const order = await create(shop, { status: 'processing' });
    const res = await shop.patch(order.id, { status: 'cancelled' });
    expect(res.statusCode).toBe(200);
    expect(res.json().order.status).toBe('cancelled');
  });

  it('lets a secret key cancel an order of source api', async () => {
    const order = await create(api, { status: 'confirmed' });
    expect((await api.patch(order.id, { status: 'cancelled' })).json().order.status).toBe('cancelled');
  });
});

describe('DELETE /orders/{id} archives', () => {
  it('answers {id, archived: true}; the order leaves GET /orders but GET /orders/{id} still returns it', async () => {
    const order = await create(api);
    const res = await api.archive(order.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: order.id, archived: true });
    expect((await api.list(`external_id=${order.external_id}`)).json().data).toEqual([]);
    expect((await api.list(`external_id=${order.external_id}&include_archived=true`)).json().data).toHaveLength(1);
    expect((await api.get(order.id)).json().order).toMatchObject({ id: order.id, archived: true, status: order.status });
    expect(await sql(t, 'select 1 from orders where id = ?', [order.id])).toHaveLength(1);
    expect((await api.archive(order.id)).json()).toEqual({ id: order.id, archived: true });
  });

  it('answers 404 for an unknown, malformed or foreign id', async () => {
    for (const id of malformedAndForeign()) expect(errorOf(await api.archive(id))).toMatchObject({ status: 404, code: 'not_found' });
    expect((await otherStore.get(otherOrderId)).json().order.archived).toBe(false);
  });
});
