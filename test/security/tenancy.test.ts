// Tenancy part of the reliability battery (issue 9): every route tried with another store's ids and keys
// reads nothing of the other store and writes nothing to it.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, type Endpoint } from '../../api/access.js';
import { addProduct, pathOf, sql } from '../catalog/fixtures.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface Tenant extends TestStore {
  admin: string;
  connection: { id: string; key: string };
  receiver: Receiver;
  endpointId: string;
  orderId: string;
  orderNumber: string;
  externalId: string;
  connectedOrderId: string;
  updateId: string;
  productId: string;
  category: string;
  cartToken: string;
  cartUrl: string;
  externalProductId: string;
}

let t: TestApp;
let a: Tenant;
let b: Tenant;
/** Which endpoints of the table were tried across stores (every one must be). */
const tried = new Set<Endpoint>();

const call = (
  endpoint: Endpoint,
  key: string,
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> => {
  tried.add(endpoint);
  const method = endpoint.split(' ')[0] as 'GET';
  return t.request({
    method,
    url: `/api/v1${path}`,
    headers: { ...bearer(key), ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
};

async function tenant(tag: string): Promise<Tenant> {
  const s = await createTestStore(t.orm, { plan: 'paid', name: `Tenancy ${tag} ${process.pid}-${Date.now()}` });
  const admin = (
    await addKey(t.orm, s.store.id, {
      kind: 'secret',
      scopes: ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read', 'webhooks:write'],
    })
  ).key;
  const receiver = await startReceiver();
  const endpoint = await t.request({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(admin),
    payload: { url: receiver.url(`/${tag}`) },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
  const orderNumber = `T-${tag}-${Date.now()}`;
  const externalId = `ext-${tag}-${Date.now()}`;
  const order = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(s.secret),
    payload: {
      external_id: externalId,
      number: orderNumber,
      totals: { total: 10 },
      customer: { name: `Customer ${tag}`, phone: '+212612345678' },
    },
  });
  expect(order.statusCode, order.body).toBe(201);
  // A connected shop (pull only) with one mirrored order and one update waiting for it.
  const connection = await createTestConnection(t.orm, s.store.id, 'platform_a', `https://shop-${tag}-${Date.now()}.example`);
  const mirrored = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(connection.key),
    payload: { external_id: `conn-${externalId}`, status: 'wc-processing', totals: { total: 20 } },
  });
  expect(mirrored.statusCode, mirrored.body).toBe(201);
  const connectedOrderId = mirrored.json().order.id;
  expect(
    (
      await t.request({
        method: 'PATCH',
        url: `/api/v1/orders/${connectedOrderId}`,
        headers: bearer(s.secret),
        payload: { status: 'shipped', tracking: { number: `AWB-${tag}` } },
      })
    ).statusCode,
  ).toBe(200);
  const [update] = await sql<{ id: string }>(t, `select id from connection_updates where connection_id = ? and state = 'waiting'`, [
    connection.id,
  ]);
  const category = `Only-${tag}-${Date.now()}`;
  const product = await addProduct(t, s.store.id, { name: `Product of ${tag}`, price: 12, stock: 5, category });
  const session = await t.request({
    method: 'POST',
    url: '/api/v1/checkout/sessions',
    headers: bearer(s.secret),
    payload: { items: [{ product_id: product.id, quantity: 1 }] },
  });
  expect(session.statusCode, session.body).toBe(201);
  const externalProductId = `xp-${tag}-${Date.now()}`;
  const xp = await t.request({
    method: 'POST',
    url: '/api/v1/external-products/batch',
    headers: bearer(connection.key),
    payload: { products: [{ external_id: externalProductId, name: `Outside product ${tag}` }] },
  });
  expect(xp.json().results[0].ok, xp.body).toBe(true);
  return {
    ...s,
    admin,
    connection,
    receiver,
    endpointId: endpoint.json().id,
    orderId: order.json().order.id,
    orderNumber,
    externalId,
    connectedOrderId,
    updateId: update!.id,
    productId: product.id,
    category,
    cartToken: session.json().token,
    cartUrl: session.json().url,
    externalProductId,
  };
}

/** Everything store A holds, as rows, to compare before and after store B's attempts. */
async function snapshot(storeId: string) {
  const byStore = [
    'orders',
    'products',
    'external_products',
    'webhook_endpoints',
    'checkout_sessions',
    'connections',
    'api_keys',
    'connect_codes',
  ];
  const out: Record<string, unknown[]> = {};
  for (const table of byStore)
    out[table] = await sql(t, `select to_jsonb(x) as row from ${table} x where store_id = ? order by to_jsonb(x)::text`, [storeId]);
  out.connection_updates = await sql(
    t,
    `select to_jsonb(u) as row from connection_updates u join connections c on c.id = u.connection_id where c.store_id = ? order by u.id`,
    [storeId],
  );
  out.order_status_history = await sql(
    t,
    `select to_jsonb(h) as row from order_status_history h join orders o on o.id = h.order_id where o.store_id = ? order by h.id`,
    [storeId],
  );
  // Events and deliveries are settled by the worker in the background: compare which exist, not their progress.
  out.order_events = await sql(
    t,
    `select e.id, e.type, e.order_id from order_events e join orders o on o.id = e.order_id where o.store_id = ? order by e.id`,
    [storeId],
  );
  return out;
}

let before: Awaited<ReturnType<typeof snapshot>>;
beforeAll(async () => {
  t = await createTestApp();
  a = await tenant('a');
  b = await tenant('b');
  before = await snapshot(a.store.id);
}, 120_000);
afterAll(async () => {
  await a?.receiver.close();
  await b?.receiver.close();
  await t.close();
});

const notFound = (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body).toBe(404);
  expect(res.json().error.code).toBe('not_found');
};

describe("store B's keys never reach store A's orders", () => {
  it("GET, PATCH and DELETE /orders/{A's id} answer 404 with every kind of B's key", async () => {
    for (const key of [b.secret, b.admin, b.connection.key]) {
      for (const id of [a.orderId, a.connectedOrderId]) {
        notFound(await call('GET /orders/{id}', key, `/orders/${id}`));
        notFound(
          await call('PATCH /orders/{id}', key, `/orders/${id}`, { status: 'shipped', tracking: { number: 'STOLEN' }, comment: 'from B' }),
        );
        notFound(await call('PATCH /orders/{id}', key, `/orders/${id}`, { status: 'cancelled' }));
        notFound(await call('DELETE /orders/{id}', key, `/orders/${id}`));
      }
    }
  });

  it("GET /orders lists none of A's orders, even filtered by A's external_id", async () => {
    const all = await call('GET /orders', b.secret, '/orders?limit=100&include_archived=true');
    expect(all.statusCode).toBe(200);
    const ids = all.json().data.map((o: { id: string }) => o.id);
    expect(ids).not.toContain(a.orderId);
    expect(ids).not.toContain(a.connectedOrderId);
    const filtered = await call('GET /orders', b.secret, `/orders?external_id=${encodeURIComponent(a.externalId)}`);
    expect(filtered.json().data).toEqual([]);
  });

  it("POST /orders and /orders/batch with A's external ids create B's own orders and leave A's alone", async () => {
    const single = await call('POST /orders', b.secret, '/orders', {
      external_id: a.externalId,
      status: 'cancelled',
      totals: { total: 1 },
    });
    expect(single.statusCode, single.body).toBe(201);
    expect(single.json().order.id).not.toBe(a.orderId);
    const batch = await call('POST /orders/batch', b.connection.key, '/orders/batch', {
      orders: [
        { external_id: `conn-${a.externalId}`, status: 'wc-cancelled', totals: { total: 2 } },
        { external_id: a.externalId, totals: { total: 3 } },
      ],
    });
    expect(batch.statusCode, batch.body).toBe(200);
    for (const r of batch.json().results) {
      expect(r.ok).toBe(true);
      expect([a.orderId, a.connectedOrderId]).not.toContain(r.id);
    }
  });

  it('a second key in X-Api-Key does not widen the first: Authorization wins, and it is B', async () => {
    notFound(await call('GET /orders/{id}', b.secret, `/orders/${a.orderId}`, undefined, { 'x-api-key': a.secret }));
    const me = await call('GET /me', b.secret, '/me', undefined, { 'x-api-key': a.secret });
    expect(me.json().store.id).toBe(b.store.id);
  });
});

describe("store B's keys never reach store A's webhooks, products, checkout or tracking", () => {
  it("GET /webhooks lists only B's endpoint; DELETE /webhooks/{A's id} is 404", async () => {
    const list = await call('GET /webhooks', b.admin, '/webhooks');
    expect(list.json().data.map((e: { id: string }) => e.id)).toEqual([b.endpointId]);
    notFound(await call('DELETE /webhooks/{id}', b.admin, `/webhooks/${a.endpointId}`));
    // POST /webhooks creates B's own endpoint (tried here so the table is complete), never one of A's.
    const created = await call('POST /webhooks', b.admin, '/webhooks', { url: b.receiver.url('/second'), events: ['order.cancelled'] });
    expect(created.statusCode, created.body).toBe(201);
    const [row] = await sql<{ store_id: string }>(t, 'select store_id from webhook_endpoints where id = ?', [created.json().id]);
    expect(row!.store_id).toBe(b.store.id);
  });

  it("A's product is not found, listed, categorised or sold with B's secret or publishable key", async () => {
    for (const key of [b.secret, b.publishable]) {
      notFound(await call('GET /products/{id}', key, `/products/${a.productId}`));
      const list = await call('GET /products', key, '/products?limit=100');
      expect(list.json().data.map((p: { id: string }) => p.id)).not.toContain(a.productId);
      const filtered = await call('GET /products', key, `/products?category=${encodeURIComponent(a.category)}`);
      expect(filtered.statusCode === 200 ? filtered.json().data : []).toEqual([]);
      expect((await call('GET /categories', key, '/categories')).json().data).not.toContain(a.category);
      const checkout = await call('POST /checkout/sessions', key, '/checkout/sessions', {
        items: [{ product_id: a.productId, quantity: 1 }],
      });
      expect(checkout.statusCode, checkout.body).toBe(422);
      expect(checkout.json().error).toMatchObject({ code: 'unprocessable', param: 'items.0.product_id' });
    }
  });

  it("GET /tracking with A's order number is 404 for B", async () => {
    for (const key of [b.secret, b.publishable, b.connection.key])
      notFound(await call('GET /tracking', key, `/tracking?order=${encodeURIComponent(a.orderNumber)}`));
  });

  it("B's storefront, cart and tracking pages do not show A's product, cart or order", async () => {
    expect((await t.request({ method: 'GET', url: `/s/${b.store.slug}/products/${a.productId}` })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/s/${b.store.slug}` })).body).not.toContain(`Product of a`);
    const cartPath = pathOf(a.cartUrl).replace(`/s/${a.store.slug}/`, `/s/${b.store.slug}/`);
    expect((await t.request({ method: 'GET', url: cartPath })).statusCode).toBe(404);
    const posted = await t.request({
      method: 'POST',
      url: cartPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=X&phone=%2B212612345678&address=1+Rue&city=C&country=M',
    });
    expect(posted.statusCode).toBe(404);
    const tracked = await t.request({
      method: 'POST',
      url: `/s/${b.store.slug}/track`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `order=${encodeURIComponent(a.orderNumber)}`,
    });
    expect(tracked.statusCode).toBe(404);
    expect(tracked.body).not.toContain('Customer a');
  });
});

describe("store B's connection never reaches store A's connection, updates or products", () => {
  it("GET and PUT /connection answer with B's own connection", async () => {
    const got = await call('GET /connection', b.connection.key, '/connection');
    expect(got.json().connection.id).toBe(b.connection.id);
    expect(got.json().store.id).toBe(b.store.id);
    const beat = await call('PUT /connection', b.connection.key, '/connection', { plugin_version: '6.6.6', shop_name: 'Not A' });
    expect(beat.statusCode, beat.body).toBe(200);
    expect(beat.json().connection.id).toBe(b.connection.id);
  });

  it("GET /connection/updates never shows A's update; acking A's update ids counts 0 and leaves it waiting", async () => {
    const pulled = await call('GET /connection/updates', b.connection.key, '/connection/updates?limit=200');
    const ids = pulled.json().updates.map((u: { id: string }) => u.id);
    expect(ids).toEqual([b.updateId]);
    const ack = await call('POST /connection/updates/ack', b.connection.key, '/connection/updates/ack', {
      applied: [a.updateId],
      failed: [{ id: a.updateId, error: 'x' }],
    });
    expect(ack.json()).toEqual({ acknowledged: 0 });
    const [row] = await sql<{ state: string }>(t, 'select state from connection_updates where id = ?', [a.updateId]);
    expect(row!.state).toBe('waiting');
    // A's own connection still sees it.
    expect(
      (await call('GET /connection/updates', a.connection.key, '/connection/updates')).json().updates.map((u: { id: string }) => u.id),
    ).toEqual([a.updateId]);
  });

  it("DELETE /external-products/{A's external id} deletes nothing of A's; a batch with it writes B's own copy", async () => {
    const removed = await call(
      'DELETE /external-products/{external_id}',
      b.connection.key,
      `/external-products/${encodeURIComponent(a.externalProductId)}`,
    );
    expect(removed.json()).toEqual({ external_id: a.externalProductId, deleted: false });
    const batch = await call('POST /external-products/batch', b.connection.key, '/external-products/batch', {
      products: [{ external_id: a.externalProductId, name: 'B copy' }],
    });
    expect(batch.json().results[0].ok).toBe(true);
    const rows = await sql<{ store_id: string; name: string }>(
      t,
      'select store_id, name from external_products where external_id = ? order by store_id',
      [a.externalProductId],
    );
    expect(rows.find((r) => r.store_id === a.store.id)?.name).toBe('Outside product a');
  });

  it("a code exchange never hands out a key to A's store from B's side (no store id in the request)", async () => {
    const res = await call('POST /connect/exchange', b.secret, '/connect/exchange', {
      code: a.connection.id,
      site_url: 'https://shop-a.example',
    });
    expect(res.statusCode).toBe(400);
  });

  it("POST /connect/disconnect with B's key disconnects B only: A's connection key keeps working", async () => {
    expect((await call('POST /connect/disconnect', b.connection.key, '/connect/disconnect')).json()).toEqual({ ok: true });
    expect((await call('GET /connection', b.connection.key, '/connection')).statusCode).toBe(401);
    expect((await call('GET /connection', a.connection.key, '/connection')).statusCode).toBe(200);
  });
});

describe('nothing of store A changed, and each store’s webhooks carry only its own orders', () => {
  it('every endpoint of the table was tried with B’s keys (keyless ones aside)', () => {
    const expected = (Object.keys(ENDPOINTS) as Endpoint[]).filter((e) => !['GET /openapi.json'].includes(e));
    expect(expected.filter((e) => !tried.has(e))).toEqual([]);
  });

  it('store A’s rows are exactly as before B’s attempts', async () => {
    const after = await snapshot(a.store.id);
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
  });

  it("A's receiver got only A's orders and B's only B's", async () => {
    const ordersOf = async (storeId: string) =>
      new Set((await sql<{ id: string }>(t, 'select id from orders where store_id = ?', [storeId])).map((r) => r.id));
    const [aOrders, bOrders] = [await ordersOf(a.store.id), await ordersOf(b.store.id)];
    // Wait until every event of both stores is handed over, then let deliveries finish.
    await eventually(
      async () =>
        (
          await sql<{ n: string }>(
            t,
            `select count(*) as n from order_events e join orders o on o.id = e.order_id where o.store_id in (?, ?) and e.dispatched_at is null`,
            [a.store.id, b.store.id],
          )
        )[0]!.n === '0',
      30_000,
      'events handed over',
    );
    await eventually(
      async () =>
        (
          await sql<{ n: string }>(
            t,
            `select count(*) as n from webhook_deliveries where store_id in (?, ?) and status in ('pending', 'sending')`,
            [a.store.id, b.store.id],
          )
        )[0]!.n === '0',
      30_000,
      'deliveries settled',
    );
    const bodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body).data.order.id as string);
    expect(bodies(a.receiver).length).toBeGreaterThan(0);
    expect(bodies(b.receiver).length).toBeGreaterThan(0);
    expect(bodies(a.receiver).filter((id) => !aOrders.has(id))).toEqual([]);
    expect(bodies(b.receiver).filter((id) => !bOrders.has(id))).toEqual([]);
  });
});
