// SQL statements per request: counts that machine noise cannot move (issue: "no N+1: a 200-item order
// is not 200 INSERTs; auth and rate limit add at most one statement"). Every request goes through the
// real app with inject(); the count comes from MikroORM's query log and includes begin and commit.
// The store takes the longest write path: a live webhook endpoint subscribes to every event (so changes
// are handed to Temporal through the outbox) and orders are cash on delivery with a phone (risk history read).
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { addProduct } from '../catalog/fixtures.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import { recordStatements, statementKinds } from '../helpers/sql-count.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { orderBody } from '../orders/fixtures.js';

let t: TestApp;
let s: TestStore;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Request → its statements, for the table printed at the end. */
const measured = new Map<string, string[]>();

beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  receiver = await startReceiver();
  await createEndpoint(t.orm.em.fork(), {
    storeId: s.store.id,
    url: receiver.url(),
    events: ['*'],
    secretsKey: t.config.secretsKey,
    policy: { allowLoopback: true },
  });
});
afterAll(async () => {
  const rows = [...measured].map(
    ([name, statements]) => `${String(statements.length).padStart(4)}  ${name.padEnd(34)} ${statementKinds(statements)}`,
  );
  console.log(['SQL statements per request (auth statement included)', ...rows].join('\n'));
  await t.close();
  await receiver.close();
});

/** Sends one successful request with the store's secret key; answers the response and how many statements it ran. */
async function statementsOf(
  name: string,
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: object,
): Promise<{ res: LightMyRequestResponse; count: number }> {
  const { result: res, statements } = await recordStatements(t.orm, () =>
    t.request({ method, url: `/api/v1${url}`, headers: bearer(s.secret), ...(payload ? { payload } : {}) }),
  );
  expect(res.statusCode, res.body).toBeLessThan(300);
  measured.set(name, statements);
  return { res, count: statements.length };
}

const cod = (overrides: Record<string, unknown> = {}) => orderBody({ payment: { is_cod: true }, ...overrides });
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Item ${i}`, quantity: 1, unit_price: 2.5, sku: `SKU-${i}` }));

describe('authentication and the rate limit are one statement', () => {
  it('GET /me runs the auth statement and nothing else', async () => {
    expect((await statementsOf('GET /me', 'GET', '/me')).count).toBe(1);
  });
});

// An order write (issue 25: at most 3): auth; the held copies and the phone history; one statement for
// the orders rows, status history, subscribed event kinds, events, outbox and notify (its own commit).
// An update is the same three.
const ORDER_WRITE = 3;

describe('orders: no statement per order or per item', () => {
  let orderId: string;

  it('POST /orders with 200 items runs as many statements as with 3 items', async () => {
    const three = await statementsOf('POST /orders, 3 items', 'POST', '/orders', cod({ items: items(3) }));
    const twoHundred = await statementsOf('POST /orders, 200 items', 'POST', '/orders', cod({ items: items(200) }));
    expect(three.count).toBe(ORDER_WRITE);
    expect(twoHundred.count).toBe(three.count);
    orderId = three.res.json().order.id;
  });

  it('POST /orders/batch with 50 orders runs as many statements as with 1 order', async () => {
    const one = await statementsOf('POST /orders/batch, 1 order', 'POST', '/orders/batch', { orders: [cod()] });
    const fifty = await statementsOf('POST /orders/batch, 50 orders', 'POST', '/orders/batch', {
      orders: Array.from({ length: 50 }, () => cod()),
    });
    expect(one.res.json().results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect(fifty.res.json().results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect(one.count).toBe(ORDER_WRITE);
    expect(fifty.count).toBe(one.count);
  });

  it('GET /orders?limit=50 is auth plus one page read', async () => {
    const { res, count } = await statementsOf('GET /orders?limit=50', 'GET', '/orders?limit=50');
    expect(res.json().data).toHaveLength(50);
    expect(count).toBe(2);
  });

  it('GET /orders/{id} is auth plus one read', async () => {
    expect((await statementsOf('GET /orders/{id}', 'GET', `/orders/${orderId}`)).count).toBe(2);
  });

  it('PATCH /orders/{id} is auth plus one transaction', async () => {
    // begin; lock read; update; status history, subscribed event kinds, events, outbox and notify; commit.
    const { count } = await statementsOf('PATCH /orders/{id}', 'PATCH', `/orders/${orderId}`, {
      status: 'confirmed',
      comment: 'Called the customer',
    });
    expect(count).toBe(6);
  });
});

describe('catalogue, checkout and tracking', () => {
  let products: { id: string }[];
  beforeAll(async () => {
    products = [];
    for (let i = 0; i < 30; i++) products.push(await addProduct(t, s.store.id, { name: `Tea ${i}`, price: 5 + i, stock: 10 }));
  });

  it('GET /products is auth plus one page read (the store facts come with the key)', async () => {
    const { res, count } = await statementsOf('GET /products', 'GET', '/products');
    expect(res.json().data).toHaveLength(25);
    expect(count).toBe(2);
  });

  it('POST /checkout/sessions reads the lines’ products once, whatever their number, and writes in one statement', async () => {
    // auth; products of the lines; one statement: the session, its expiry bucket, the bucket's outbox row and notify.
    const line = (p: { id: string }) => ({ product_id: p.id, quantity: 1 });
    const one = await statementsOf('POST /checkout/sessions, 1 line', 'POST', '/checkout/sessions', {
      items: products.slice(0, 1).map(line),
    });
    const ten = await statementsOf('POST /checkout/sessions, 10 lines', 'POST', '/checkout/sessions', {
      items: products.slice(0, 10).map(line),
    });
    expect(one.count).toBe(3);
    expect(ten.count).toBe(one.count);
  });

  it('GET /tracking is auth plus one lookup', async () => {
    expect(
      (await t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload: orderBody({ number: '#77001' }) }))
        .statusCode,
    ).toBe(201);
    const { res, count } = await statementsOf('GET /tracking', 'GET', '/tracking?order=77001');
    expect(res.json().order.order_number).toBe('#77001');
    expect(count).toBe(2);
  });
});
