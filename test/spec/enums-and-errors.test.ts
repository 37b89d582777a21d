// Spec audit (issue 23 item 9): the enum and error rows asserted by behaviour through the API, with the spec's own
// lists written out here (store-commerce-api-v1.md, "Enums" and "Errors"), never read from the code under test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

const ORDER_STATUSES = ['pending', 'confirmed', 'shipped', 'out_for_delivery', 'completed', 'cancelled'];
const PAYMENT_STATUSES = ['unpaid', 'pending', 'paid', 'failed', 'refunded'];
const STATUS_KINDS = ['platform_a', 'platform_b', 'service'];
/** The spec's error table: each HTTP status with its one code. */
const ERROR_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
});
afterAll(() => t.close());

let seq = 0;
const externalId = () => `enum-${process.pid}-${++seq}`;
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key = s.secret) =>
  t.app.inject({ method, url: `/api/v1${url}`, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
const newOrder = async (extra: Record<string, unknown> = {}) => {
  const res = await api('POST', '/orders', { external_id: externalId(), totals: { total: 10 }, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().order as { id: string; status: string; payment: { status: string } };
};

describe('ENUM-1: OrderStatus is exactly the six values', () => {
  it('PATCH takes each of the six (200, or 409 for a transition the table forbids) and refuses any other word with 400 param status', async () => {
    for (const status of ORDER_STATUSES) {
      const order = await newOrder();
      const res = await api('PATCH', `/orders/${order.id}`, { status });
      expect([200, 409], `${status}: ${res.body}`).toContain(res.statusCode);
      if (res.statusCode === 200) expect(res.json().order.status).toBe(status);
    }
    const order = await newOrder();
    for (const status of ['delivered', 'refunded', 'processing', 'PENDING', 'Shipped', '', 'wc-completed', 'fulfilled']) {
      const res = await api('PATCH', `/orders/${order.id}`, { status });
      expect(res.statusCode, `${status}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'status' });
    }
    expect((await api('GET', `/orders/${order.id}`)).json().order.status).toBe('pending');
  });

  it('every order the API shows, whatever the input status and kind, has one of the six', async () => {
    const inputs: Record<string, unknown>[] = [
      { status: 'processing' },
      { status: 'paid' },
      { status: 'canceled' },
      { status: 'delivered' },
      { status: 'fulfilled', status_kind: 'platform_b' },
      { status: 'partial', status_kind: 'platform_b' },
      { status: 'wc-on-hold', status_kind: 'platform_a' },
      { status: 'a-custom-shop-status', status_kind: 'platform_a' },
      {},
    ];
    for (const input of inputs) {
      const res = await api('POST', '/orders', { external_id: externalId(), totals: { total: 10 }, ...input });
      expect([200, 201], res.body).toContain(res.statusCode);
      expect(ORDER_STATUSES, JSON.stringify(input)).toContain(res.json().order.status);
    }
  });
});

describe('ENUM-3: PaymentStatus on the order is unpaid, pending, paid, failed or refunded', () => {
  it('every input payment status (the five and partially_refunded) comes out as one of the five; another word is 400 naming payment.status', async () => {
    for (const status of [...PAYMENT_STATUSES, 'partially_refunded']) {
      const order = await newOrder({ payment: { status } });
      expect(PAYMENT_STATUSES, status).toContain(order.payment.status);
    }
    for (const status of ['chargeback', 'PAID', 'partially_paid', '']) {
      const res = await api('POST', '/orders', { external_id: externalId(), totals: { total: 10 }, payment: { status } });
      expect(res.statusCode, `${status}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'payment.status' });
    }
  });
});

describe('ENUM-7: status_kind is platform_a, platform_b or service', () => {
  it('accepts the three and refuses any other with 400 param status_kind', async () => {
    for (const kind of STATUS_KINDS) {
      const res = await api('POST', '/orders', { external_id: externalId(), totals: { total: 10 }, status_kind: kind });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(201);
    }
    for (const kind of ['platform_c', 'Service', 'api', 'native', '']) {
      const res = await api('POST', '/orders', { external_id: externalId(), totals: { total: 10 }, status: 'pending', status_kind: kind });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'status_kind' });
    }
  });
});

describe('ERR-2 and ERR-3: each error status carries the spec code, with a message in plain words', () => {
  it('400, 401, 403, 404, 409, 413, 422 and 429 answer the code of the spec table and a sentence for a person', async () => {
    const order = await newOrder();
    const cancelled = await newOrder();
    expect((await api('PATCH', `/orders/${cancelled.id}`, { status: 'cancelled' })).statusCode).toBe(200);
    const limited = await createTestStore(t.orm);
    const visitor = randomLoopbackIp();
    const failures = [
      await api('GET', '/orders?limit=0'),
      await api('POST', '/orders', { totals: { total: 1 } }),
      await t.app.inject({ method: 'GET', url: '/api/v1/me' }),
      await api('GET', '/me', undefined, 'svc_live_sk_' + '0'.repeat(48)),
      await api('GET', '/webhooks'),
      await api('GET', `/orders/00000000-0000-4000-8000-000000000000`),
      await api('PATCH', `/orders/${cancelled.id}`, { status: 'shipped' }),
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: { ...bearer(s.secret), 'content-type': 'application/json' },
        payload: JSON.stringify({ external_id: externalId(), totals: { total: 1 }, note: 'x'.repeat(1_100_000) }),
      }),
      await api('POST', '/checkout/sessions', { items: [{ product_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }),
      await api('GET', `/tracking?order=${encodeURIComponent('no-such-number')}`),
    ];
    // The free plan's 60 a minute, from one visitor: the 61st is 429.
    let over;
    for (let i = 0; i < 61; i++) {
      over = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(limited.secret), remoteAddress: visitor });
    }
    failures.push(over!);
    const seen = new Set<number>();
    for (const res of failures) {
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      seen.add(res.statusCode);
      const error = res.json().error as { code: string; message: string };
      expect(error.code, `${res.statusCode}: ${res.body}`).toBe(ERROR_CODES[res.statusCode]);
      // A sentence a person can read: words with spaces, no code, stack, SQL or serialised objects.
      expect(error.message, res.body).toMatch(/^[A-Z"'{(/a-z0-9].*[a-z].* .*$/s);
      expect(error.message.length).toBeLessThanOrEqual(300);
      expect(error.message).not.toMatch(
        /\bat .+:\d+:\d+|\[object |undefined|TypeError|ZodError|SELECT |INSERT |UPDATE |\bnull\b.*\bnull\b/i,
      );
    }
    expect([...seen].sort()).toEqual([400, 401, 403, 404, 409, 413, 422, 429]);
    expect(order.status).toBe('pending');
  });
});
