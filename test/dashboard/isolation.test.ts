// One owner can never see or touch another owner's store: every dashboard route, tried by owner B with
// owner A's store, key, webhook, delivery, order and connection ids, answers 404 and changes nothing.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPages } from '../../web/dashboard/index.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { addKey, createTestConnection } from '../helpers/store.js';
import { csrfOf, PageClient } from './client.js';
import { insertProducts, NewProduct } from '../../services/catalog/create.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

/** Every route the dashboard plugin registers, as "METHOD /path". */
async function dashboardRoutes(): Promise<string[]> {
  const probe = Fastify();
  const routes = new Set<string>();
  probe.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m === 'GET' || m === 'POST') routes.add(`${m} ${r.url.replace(/(.)\/$/, '$1')}`);
  });
  await probe.register(dashboardPages);
  await probe.ready();
  await probe.close();
  return [...routes].sort();
}

/** A form that would do real harm if the route let it through. */
const FIELDS: Record<string, Record<string, string | string[]>> = {
  'POST /dashboard/stores/:storeId/keys': { kind: 'secret', scopes: ['orders:read', 'webhooks:write'] },
  'POST /dashboard/stores/:storeId/keys/:keyId/revoke': { confirm: 'yes' },
  'POST /dashboard/stores/:storeId/webhooks': { url: 'http://127.0.0.1:9/intruder', events: '*' },
  'POST /dashboard/stores/:storeId/webhooks/:endpointId/delete': { confirm: 'yes' },
  'POST /dashboard/stores/:storeId/webhooks/:endpointId/test': {},
  'POST /dashboard/stores/:storeId/webhooks/deliveries/:deliveryId/replay': {},
  'POST /dashboard/stores/:storeId/orders/:orderId': { status: 'confirmed', comment: 'intruder' },
  'POST /dashboard/stores/:storeId/connections': { platform: 'platform_a', site_url: 'https://intruder.example' },
  'POST /dashboard/stores/:storeId/connections/:connectionId/replay': {},
  'POST /dashboard/stores/:storeId/connections/:connectionId/disconnect': { confirm: 'yes' },
  'POST /dashboard/stores/:storeId/products': { name: 'Intruder product', price: '1' },
  'POST /dashboard/stores/:storeId/products/import': { file: 'name,price\nIntruder,1\n' },
  'POST /dashboard/stores/:storeId/products/:productId': { name: 'Taken over', price: '0' },
  'POST /dashboard/stores/:storeId/products/:productId/archive': { archived: 'true' },
  'POST /dashboard/stores/:storeId/notifications/chat': {
    enabled: 'on',
    base_url: 'http://127.0.0.1:9/intruder',
    api_version: 'v21.0',
    phone_number_id: '1',
    token: 'intruder',
  },
  'POST /dashboard/stores/:storeId/push-subscriptions': {
    endpoint: 'http://127.0.0.1:9/intruder',
    p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
    auth: 'tBHItJI5svbpez7KI4CCXg',
  },
  'POST /dashboard/stores/:storeId/push-subscriptions/delete': { endpoint: 'http://127.0.0.1:9/alpha-device' },
  'POST /dashboard/stores/:storeId/settings': {
    name: 'Taken over',
    currency: 'EUR',
    mode: 'full',
    plan: 'paid',
    standard_delivery_fee: '1',
    published: 'on',
  },
};
const GETS = [
  '',
  '/keys',
  '/keys/:keyId/revoke',
  '/webhooks',
  '/webhooks/:endpointId/delete',
  '/orders',
  '/orders/:orderId',
  '/products',
  '/products/new',
  '/products/:productId',
  '/connections',
  '/connections/:connectionId/disconnect',
  '/notifications',
  '/settings',
].map((p) => `GET /dashboard/stores/:storeId${p}`);

describe('one owner never sees or touches another owner’s store', () => {
  it('the route table below covers every dashboard route that names a store', async () => {
    const storeRoutes = (await dashboardRoutes()).filter((r) => r.includes(':storeId'));
    expect(storeRoutes).toEqual([...GETS, ...Object.keys(FIELDS)].sort());
  });

  it('every route with the other owner’s ids answers 404, and nothing of theirs changes', { timeout: 60_000 }, async () => {
    const db = () => t.orm.em.fork();
    // Owner A, with one of everything.
    const a = new PageClient(t);
    await a.signUp();
    const storeA = await a.createStore('Alpha Secret Store');
    const key = await addKey(t.orm, storeA, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
    const hook = await t.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key.key),
      payload: { url: 'http://127.0.0.1:9/alpha' },
    });
    expect(hook.statusCode).toBe(201);
    const order = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(key.key),
      payload: { external_id: 'alpha-1', totals: { total: 10 } },
    });
    expect(order.statusCode).toBe(201);
    const connection = await createTestConnection(t.orm, storeA, 'platform_a');
    const [product] = await insertProducts(db(), storeA, [NewProduct.parse({ name: 'Alpha product', price: 5 })]);
    // A device of A's with notifications on (the delete route must not reach it).
    await db().execute(
      `insert into push_subscriptions (id, store_id, owner_id, endpoint, p256dh, auth)
       select gen_random_uuid(), store_id, owner_id, 'http://127.0.0.1:9/alpha-device', 'key', 'auth' from owner_stores where store_id = ?`,
      [storeA],
    );
    await eventually(
      async () => (await db().execute(`select 1 from webhook_deliveries where store_id = ?`, [storeA])).length > 0,
      20_000,
      'a delivery of store A',
    );
    const ids: Record<string, string> = {
      storeId: storeA,
      keyId: key.id,
      endpointId: hook.json().id,
      orderId: order.json().order.id,
      connectionId: connection.id,
      productId: product!.id,
      deliveryId: (await db().execute<{ id: string }[]>(`select id from webhook_deliveries where store_id = ?`, [storeA]))[0]!.id,
    };
    const snapshot = async () =>
      db().execute(
        `select s.name, s.plan, s.currency, s.standard_delivery_fee::text,
           (select json_agg(json_build_object('id', id, 'revoked', revoked_at) order by id) from api_keys where store_id = s.id) as keys,
           (select json_agg(json_build_object('id', id, 'deleted', deleted_at) order by id) from webhook_endpoints where store_id = s.id) as hooks,
           (select count(*) from webhook_deliveries where store_id = s.id) as deliveries,
           (select json_agg(json_build_object('status', status, 'comment', status_comment)) from orders where store_id = s.id) as orders,
           (select count(*) from order_status_history h join orders o on o.id = h.order_id where o.store_id = s.id) as history,
           (select json_agg(json_build_object('id', id, 'status', status) order by id) from connections where store_id = s.id) as connections,
           (select count(*) from connect_codes where store_id = s.id) as codes,
           (select json_agg(endpoint order by endpoint) from push_subscriptions where store_id = s.id) as devices,
           (select count(*) from chat_settings where store_id = s.id) as chat,
           (select json_agg(json_build_object('id', id, 'name', name, 'price', price, 'archived', archived) order by id) from products where store_id = s.id) as products
         from stores s where s.id = ?`,
        [storeA],
      );
    const before = await snapshot();

    // Owner B, signed in with a store of their own.
    const b = new PageClient(t);
    await b.signUp();
    const storeB = await b.createStore('Beta Store');
    const token = csrfOf((await b.get(`/dashboard/stores/${storeB}`)).body)!;
    const fill = (route: string, values: Record<string, string>) =>
      route.split(' ')[1]!.replace(/:(\w+)/g, (_m, name: string) => values[name]!);
    const tried: string[] = [];
    const expect404 = async (route: string, url: string) => {
      const res = route.startsWith('GET') ? await b.get(url) : await b.post(url, { ...FIELDS[route], _csrf: token });
      tried.push(`${route.split(' ')[0]} ${url}`);
      expect(res.statusCode, `${route} as ${url}`).toBe(404);
      expect(res.body).not.toContain('Alpha Secret Store');
    };
    for (const route of [...GETS, ...Object.keys(FIELDS)]) {
      await expect404(route, fill(route, ids));
      // B's own store with A's key, webhook, delivery, order or connection id.
      if (/:(?!storeId)\w+/.test(route.split(' ')[1]!)) await expect404(route, fill(route, { ...ids, storeId: storeB }));
    }
    expect(tried.length).toBe(GETS.length + Object.keys(FIELDS).length + 14);
    expect((await b.get(`/dashboard/go?store=${storeA}`)).statusCode).toBe(404);
    // The connect page cannot issue a code for A's store either.
    const params = { site_url: 'https://intruder.example/', return_url: 'https://intruder.example/back', state: 's' };
    const page = await b.get(`/connect/platform_a?${new URLSearchParams(params)}`);
    expect(page.body).not.toContain('Alpha Secret Store');
    const connect = await b.post('/connect/platform_a', { ...params, decision: 'approve', store: storeA, _csrf: csrfOf(page.body)! });
    // Another owner's store is answered as no store picked: back to the shop with svc_error=invalid_request.
    expect(connect.statusCode).toBe(303);
    expect(new URL(connect.headers.location as string).searchParams.get('svc_error')).toBe('invalid_request');
    // B's pages never list A's store.
    expect((await b.get('/dashboard')).body).not.toContain('Alpha Secret Store');

    expect(await snapshot()).toEqual(before);
    // And A still sees and manages it all.
    expect((await a.get(`/dashboard/stores/${storeA}/orders/${ids.orderId}`)).statusCode).toBe(200);
  });
});
