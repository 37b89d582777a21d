import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { errorOf, nextExternalId, orderBody, orderCount, ordersApi } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let shopA: ReturnType<typeof ordersApi>;
let shopB: ReturnType<typeof ordersApi>;
let connA: { id: string };
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  const a = await createTestConnection(t.orm, s.store.id, 'platform_a');
  const b = await createTestConnection(t.orm, s.store.id, 'platform_b', 'https://shop-b.example');
  connA = a;
  shopA = ordersApi(t, a.key);
  shopB = ordersApi(t, b.key);
});
afterAll(() => t.close());

const statusOf = async (client: ReturnType<typeof ordersApi>, body: Record<string, unknown>) => {
  const res = await client.post(orderBody(body));
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().order.status as string;
};

describe('the source comes from the key, never the body', () => {
  it('a secret key gives api, a platform_a connection key platform_a, a platform_b connection key platform_b', async () => {
    expect((await api.post(orderBody({ source: 'platform_a' }))).json().order.source).toBe('api');
    expect((await shopA.post(orderBody({ source: 'native', status: 'processing' }))).json().order.source).toBe('platform_a');
    expect((await shopB.post(orderBody({ source: 'api', status: 'open' }))).json().order.source).toBe('platform_b');
  });

  it('external ids are unique per origin: the API and two connections sending "1234" make three orders', async () => {
    const external_id = `1234-${nextExternalId()}`;
    const answers = [
      await api.post(orderBody({ external_id })),
      await shopA.post(orderBody({ external_id, status: 'processing' })),
      await shopB.post(orderBody({ external_id, status: 'open' })),
    ];
    expect(answers.map((r) => r.json().action)).toEqual(['created', 'created', 'created']);
    expect(new Set(answers.map((r) => r.json().order.id)).size).toBe(3);
    expect(await orderCount(t, s.store.id, 'external_id = ?', [external_id])).toBe(3);
    // Each origin updates its own copy only.
    const again = await shopA.post(orderBody({ external_id, status: 'processing', note: 'A again' }));
    expect(again.json()).toMatchObject({ action: 'updated', order: { id: answers[1]!.json().order.id, source: 'platform_a' } });
  });

  it('records the sending connection on the order', async () => {
    const res = await shopA.post(orderBody({ status: 'processing' }));
    const [row] = await t.orm.em
      .fork()
      .execute<{ connection_id: string; origin: string }[]>('select connection_id, origin from orders where id = ?', [res.json().order.id]);
    expect(row).toEqual({ connection_id: connA.id, origin: connA.id });
  });
});

describe('status_kind defaults to the key: a connection speaks its platform, other keys the service', () => {
  it.each([
    ['wc-processing', 'confirmed'],
    ['processing', 'confirmed'],
    ['on-hold', 'pending'],
    ['wc-completed', 'completed'],
    ['refunded', 'cancelled'],
  ])('platform_a connection: %s is %s', async (status, expected) => {
    expect(await statusOf(shopA, { status })).toBe(expected);
  });

  it.each([
    ['open', 'confirmed'],
    ['partial', 'confirmed'],
    ['fulfilled', 'shipped'],
    ['cancelled', 'cancelled'],
  ])('platform_b connection: %s is %s', async (status, expected) => {
    expect(await statusOf(shopB, { status })).toBe(expected);
  });

  it.each([
    ['delivered', 'completed'],
    ['canceled', 'cancelled'],
    ['paid', 'confirmed'],
    ['processing', 'confirmed'],
    ['fulfilled', 'shipped'],
    ['out_for_delivery', 'out_for_delivery'],
    [' Shipped ', 'shipped'],
  ])('secret key (service): %s is %s', async (status, expected) => {
    expect(await statusOf(api, { status })).toBe(expected);
  });

  it('never reads another platform’s word under the default kind', async () => {
    // platform_b does not know wc-processing: kept pending with a warning, never read as confirmed.
    const res = await shopB.post(orderBody({ status: 'wc-processing' }));
    expect(res.json()).toMatchObject({ action: 'created', order: { status: 'pending' }, warning: expect.any(String) });
    expect(errorOf(await api.post(orderBody({ status: 'on-hold' })))).toMatchObject({ status: 400, param: 'status' });
  });

  it('an explicit status_kind overrides the default', async () => {
    expect(await statusOf(api, { status: 'wc-on-hold', status_kind: 'platform_a' })).toBe('pending');
    expect(await statusOf(api, { status: 'open', status_kind: 'platform_b' })).toBe('confirmed');
    expect(await statusOf(shopA, { status: 'delivered', status_kind: 'service' })).toBe('completed');
    expect(errorOf(await shopA.post(orderBody({ status: 'wc-processing', status_kind: 'service' })))).toMatchObject({
      status: 400,
      param: 'status',
    });
  });

  it('a new order without a status is pending', async () => {
    const body = orderBody();
    delete body.status;
    expect((await api.post(body)).json().order.status).toBe('pending');
  });
});

describe('an outside status the mapping does not know never loses the order (docs/orders.md)', () => {
  it('a new order with a shop’s custom status is created pending, keeps external_status, and the result says why', async () => {
    for (const [client, status] of [
      [shopA, 'wc-awaiting-pickup'],
      [shopB, 'on_hold_custom'],
    ] as const) {
      const body = orderBody({ status });
      const res = await client.post(body);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ action: 'created', order: { status: 'pending', external_status: status } });
      expect(res.json().warning).toMatch(/unknown platform_[ab] status .*kept with its current status/);
    }
  });

  it('an order already held keeps its status when a custom status arrives, and the batch result carries the warning', async () => {
    const body = orderBody({ status: 'wc-processing' });
    const { order } = (await shopA.post(body)).json();
    const res = await shopA.batch([{ ...body, status: 'wc-packed-by-warehouse', note: 'packing' }]);
    expect(res.json().results).toEqual([
      {
        external_id: body.external_id,
        ok: true,
        action: 'updated',
        id: order.id,
        warning: expect.stringContaining('wc-packed-by-warehouse'),
      },
    ]);
    expect((await shopA.get(order.id)).json().order).toMatchObject({
      status: 'confirmed',
      external_status: 'wc-packed-by-warehouse',
      note: 'packing',
    });
  });

  it('a service status it does not know stays a 400 (the caller’s own vocabulary)', async () => {
    const body = orderBody({ status: 'teleported' });
    expect(errorOf(await api.post(body))).toMatchObject({ status: 400, code: 'invalid_request', param: 'status' });
    expect(errorOf(await shopA.post(orderBody({ status: '   ' })))).toMatchObject({ status: 400, param: 'status' });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(0);
  });
});

describe('delivery facts move an order forward, never back', () => {
  it('delivered: true moves the order to completed', async () => {
    expect(await statusOf(api, { status: 'confirmed', delivered: true })).toBe('completed');
    expect(await statusOf(shopA, { status: 'processing', delivered: true })).toBe('completed');
  });

  it('delivered: true leaves a cancelled order cancelled', async () => {
    expect(await statusOf(api, { status: 'cancelled', delivered: true })).toBe('cancelled');
  });

  it('a tracking number moves pending and confirmed to shipped, not out_for_delivery back', async () => {
    const tracking = { number: 'AWB123', courier: 'Amana' };
    expect(await statusOf(api, { status: 'pending', tracking })).toBe('shipped');
    expect(await statusOf(shopB, { status: 'open', tracking })).toBe('shipped');
    expect(await statusOf(api, { status: 'out_for_delivery', tracking })).toBe('out_for_delivery');
    expect(await statusOf(api, { status: 'confirmed', tracking: { number: null, courier: 'Amana' } })).toBe('confirmed');
  });

  it('a re-sent older status never moves the order backwards', async () => {
    const body = orderBody({ status: 'processing' });
    const { order } = (await shopA.post(body)).json();
    expect((await shopA.patch(order.id, { status: 'shipped' })).json().order.status).toBe('shipped');
    const resent = await shopA.post({ ...body, note: 'customer asked for a call' });
    expect(resent.json()).toMatchObject({ action: 'updated', order: { status: 'shipped', note: 'customer asked for a call' } });
    const completed = await shopA.post({ ...body, status: 'wc-completed' });
    expect(completed.json().order.status).toBe('completed');
    expect((await shopA.post({ ...body, status: 'on-hold' })).json().order.status).toBe('completed');
  });

  it('the outside platform may still cancel (and restore) its order', async () => {
    const body = orderBody({ status: 'processing' });
    await shopA.post(body);
    expect((await shopA.post({ ...body, status: 'cancelled' })).json().order.status).toBe('cancelled');
    expect((await shopA.post({ ...body, status: 'processing' })).json().order.status).toBe('confirmed');
  });
});
