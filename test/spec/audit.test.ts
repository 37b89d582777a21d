// Rules the spec audit (issue 23 item 9) found with no row or no test: who is in charge of payment and
// stock, the webhook delivery body, the per-IP limit of POST /connect/exchange, the connection status
// values, and the plugin pausing after a 409 on PUT /connection. Each asserts the rule by behaviour.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { approveConnection } from '../../services/connections/codes.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop } from '../../examples/plugin/shop.js';
import { bearer, createListeningTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { startInOneRateWindow } from '../helpers/rate-window.js';
import { createTestStore } from '../helpers/store.js';
import { addProduct } from '../catalog/fixtures.js';
import { connectedPlugin, mirroredOrder } from '../connections/fixtures.js';

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp();
});
afterAll(() => t.close());

let seq = 0;
const site = () => `https://audit-${process.pid}-${++seq}.example`;
async function connect(storeId: string, siteUrl = site()) {
  const { code } = await approveConnection(t.orm.em.fork(), { storeId, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
  const res = await t.request({ method: 'POST', url: '/api/v1/connect/exchange', payload: { code, site_url: siteUrl } });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().connection_id as string, key: res.json().api_key as string, siteUrl };
}
const call = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: Record<string, unknown>) =>
  t.request({ method, url: `/api/v1${url}`, headers: bearer(key), ...(payload === undefined ? {} : { payload }) });

describe('the outside platform is in charge of payment and stock', () => {
  it('PATCH to completed leaves an outside cash-on-delivery order unpaid, and marks an api one paid', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await connect(s.store.id);
    const cod = { is_cod: true };
    const outside = (
      await call(shop.key, 'POST', '/orders', { external_id: 'cod-1', status: 'wc-processing', totals: { total: 20 }, payment: cod })
    ).json().order;
    const own = (
      await call(s.secret, 'POST', '/orders', { external_id: 'cod-2', status: 'confirmed', totals: { total: 20 }, payment: cod })
    ).json().order;
    expect([outside.payment.status, own.payment.status]).toEqual(['unpaid', 'unpaid']);
    for (const order of [outside, own])
      expect((await call(s.secret, 'PATCH', `/orders/${order.id}`, { status: 'completed' })).statusCode).toBe(200);
    expect((await call(s.secret, 'GET', `/orders/${outside.id}`)).json().order).toMatchObject({
      status: 'completed',
      payment: { status: 'unpaid' },
    });
    expect((await call(s.secret, 'GET', `/orders/${own.id}`)).json().order).toMatchObject({
      status: 'completed',
      payment: { status: 'paid' },
    });
    // The shop's next copy is what says the cash came in.
    const copy = await call(shop.key, 'POST', '/orders', {
      external_id: 'cod-1',
      status: 'wc-completed',
      totals: { total: 20 },
      payment: cod,
    });
    expect(copy.json().order.payment.status).toBe('paid');
  });

  it('an outside order never touches the stock of the store’s products, even naming their sku', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await connect(s.store.id);
    const product = await addProduct(t, s.store.id, { name: 'Tea', sku: 'TEA-1', stock: 5 });
    const res = await call(shop.key, 'POST', '/orders', {
      external_id: 'stock-1',
      status: 'wc-processing',
      totals: { total: 30 },
      items: [{ name: 'Tea', sku: 'TEA-1', external_product_id: '77', quantity: 3, unit_price: 10 }],
    });
    expect(res.json().order.items[0]).toMatchObject({ sku: 'TEA-1', product_id: null });
    await call(s.secret, 'PATCH', `/orders/${res.json().order.id}`, { status: 'completed' });
    const [row] = await t.orm.em.fork().execute<{ stock: number }[]>('select stock from products where id = ?', [product.id]);
    expect(row!.stock).toBe(5);
  });
});

describe('a webhook delivery body is {id, type, created_at, data: {order}}', () => {
  it('has exactly those fields: the event id (webhook-id), its kind (X-Service-Event), when, and the order as the API showed it', async () => {
    const receiver = await startReceiver();
    const s = await createTestStore(t.orm, { plan: 'paid' });
    await createEndpoint(t.orm.em.fork(), {
      storeId: s.store.id,
      url: receiver.url(),
      events: ['order.created'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: true },
    });
    const before = Date.now();
    const res = await call(s.secret, 'POST', '/orders', { external_id: 'body-1', totals: { total: 9.5 }, customer: { name: 'Zoë' } });
    await eventually(() => receiver.received.length === 1, 20_000, 'delivery');
    const hit = receiver.received[0]!;
    const body = JSON.parse(hit.body);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(Object.keys(body.data)).toEqual(['order']);
    expect(body.data.order).toEqual(res.json().order);
    expect(body.type).toBe(hit.headers['x-service-event']);
    expect(body.id).toBe(hit.headers['webhook-id']);
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    await receiver.close();
  });
});

describe('POST /connect/exchange, which needs no key, is limited per client IP: 60 a minute', () => {
  it('the 61st exchange from one IP in a minute is 429 with Retry-After, even with a good code; another IP still passes', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const siteUrl = site();
    const { code } = await approveConnection(t.orm.em.fork(), { storeId: s.store.id, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
    const ip = randomLoopbackIp();
    await startInOneRateWindow(t.orm, 20_000);
    const exchange = (payload: Record<string, string>, from: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/connect/exchange', payload, remoteAddress: from });
    const wrong = await Promise.all(Array.from({ length: 60 }, () => exchange({ code: 'not-a-code', site_url: siteUrl }, ip)));
    expect(wrong.map((r) => r.statusCode)).toEqual(Array(60).fill(400));
    const over = await exchange({ code, site_url: siteUrl }, ip);
    expect(over.statusCode).toBe(429);
    expect(over.json().error.code).toBe('rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // The code was not used up by the refused attempt: another client exchanges it.
    expect((await exchange({ code, site_url: siteUrl }, randomLoopbackIp())).statusCode).toBe(200);
  });
});

describe('a connection’s status is active or disconnected', () => {
  it('GET /connection says active; after POST /connect/disconnect it is disconnected, and no other value can be stored', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await connect(s.store.id);
    expect((await call(shop.key, 'GET', '/connection')).json().connection.status).toBe('active');
    expect((await call(shop.key, 'POST', '/connect/disconnect')).json()).toEqual({ ok: true });
    const status = async () =>
      (await t.orm.em.fork().execute<{ status: string }[]>('select status from connections where id = ?', [shop.id]))[0]!.status;
    expect(await status()).toBe('disconnected');
    await expect(t.orm.em.fork().execute(`update connections set status = 'paused' where id = ?`, [shop.id])).rejects.toThrow();
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.components.schemas.Connection.properties.status.enum).toEqual(['active', 'disconnected']);
  });
});

describe('the plugin pauses after a 409 on PUT /connection', () => {
  it('a copy of the shop on another host (staging) gets 409, then sends nothing but heartbeats until one passes again', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const shop = await connect(s.store.id);
    // The live shop's key, copied to a staging site with its own host.
    const staging = new ReferencePlugin({
      serviceUrl: t.baseUrl,
      platform: 'platform_a',
      siteUrl: 'https://staging.audit.example',
      shop: new InMemoryShop(),
    });
    staging.useCredentials(shop.key, 'whsec_unused');
    const beat = await staging.heartbeat(null);
    expect(beat.status).toBe(409);
    expect(staging.client.paused).not.toBeNull();
    const sent = await staging.client.sendOrder({ external_id: 'from-staging', totals: { total: 1 } });
    expect(sent).toMatchObject({ status: 409, body: { error: { code: 'paused' } } });
    expect((await staging.client.pullUpdates()).status).toBe(409);
    const orders = await t.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from orders where store_id = ?', [s.store.id]);
    expect(orders[0]!.n).toBe(0);
    // Back on the connected host, a heartbeat passes and the plugin works again.
    const live = new ReferencePlugin({ serviceUrl: t.baseUrl, platform: 'platform_a', siteUrl: shop.siteUrl, shop: new InMemoryShop() });
    live.useCredentials(shop.key, 'whsec_unused');
    live.client.paused = { since: new Date(), reason: 'paused by an earlier 409' };
    expect((await live.heartbeat(null)).status).toBe(200);
    expect(live.client.paused).toBeNull();
    expect((await live.client.sendOrder({ external_id: 'from-live', totals: { total: 1 } })).status).toBe(201);
  });
});

const waitingUpdates = async (connectionId: string) =>
  (
    await t.orm.em
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from connection_updates where connection_id = ? and state = 'waiting'`, [
        connectionId,
      ])
  )[0]!.n;

describe('a pull-only plugin pulls every 15 minutes, then acknowledges (UPD-6, LIM-12)', () => {
  it('the reference plugin, started with its defaults, pulls nothing before 15 minutes, then pulls, applies and acks the update', async () => {
    const c = await connectedPlugin(t, { push: false });
    const orderId = await mirroredOrder(c, `P-${process.pid}`);
    expect((await call(c.secret, 'PATCH', `/orders/${orderId}`, { status: 'shipped' })).statusCode).toBe(200);
    expect(await waitingUpdates(c.connectionId)).toBe(1);
    // Only the plugin's interval runs on a fake clock; its requests to the service are real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      c.plugin.startPulling();
      vi.advanceTimersByTime(15 * 60 * 1000 - 1000);
      await new Promise((r) => setTimeout(r, 500));
      expect(c.shop.appliedUpdates.size).toBe(0);
      expect(await waitingUpdates(c.connectionId)).toBe(1);
      vi.advanceTimersByTime(1000);
      await eventually(async () => (await waitingUpdates(c.connectionId)) === 0, 20_000, 'the pulled update acknowledged');
      expect(c.shop.appliedUpdates.size).toBe(1);
      expect(c.shop.orders.get(`P-${process.pid}`)!.status).toBe('shipped');
    } finally {
      await c.plugin.stop();
      vi.useRealTimers();
    }
  });
});

describe('applying the same update twice changes nothing (UPD-7)', () => {
  it('an update delivered twice (pulled again before its ack) is applied once: one note, one ledger entry, nothing sent back', async () => {
    const c = await connectedPlugin(t, { push: false });
    const externalId = `D-${process.pid}`;
    const orderId = await mirroredOrder(c, externalId);
    await call(c.secret, 'PATCH', `/orders/${orderId}`, { status: 'shipped', comment: 'Left the warehouse' });
    const first = (await c.plugin.client.pullUpdates()).body.updates;
    const second = (await c.plugin.client.pullUpdates()).body.updates;
    expect(second.map((u) => u.id)).toEqual(first.map((u) => u.id));
    expect(await c.plugin.applyAll(first)).toEqual({ applied: [first[0]!.id], failed: [] });
    const after = structuredClone(c.shop.orders.get(externalId));
    expect(await c.plugin.applyAll(second)).toEqual({ applied: [first[0]!.id], failed: [] });
    expect(c.shop.orders.get(externalId)).toEqual(after);
    expect(after!.notes).toEqual(['Left the warehouse']);
    expect(c.shop.applyCount).toBe(1);
    expect(c.shop.outgoingChanges).toEqual([]);
    expect((await c.plugin.client.ack([first[0]!.id], [])).body).toEqual({ acknowledged: 1 });
    expect((await c.plugin.client.ack([first[0]!.id], [])).body).toEqual({ acknowledged: 0 });
  });
});

describe('API access and order sync are available on both plans (LIM-23)', () => {
  it('a free store’s keys read and write orders, and its one connected shop syncs orders and gets its updates', async () => {
    const s = await createTestStore(t.orm, { plan: 'free' });
    expect((await call(s.secret, 'GET', '/me')).json().limits.requests_per_minute).toBe(60);
    expect((await call(s.secret, 'POST', '/orders', { external_id: 'free-1', totals: { total: 5 } })).statusCode).toBe(201);
    expect((await call(s.secret, 'GET', '/orders')).json().data).toHaveLength(1);
    const shop = await connect(s.store.id);
    const synced = await call(shop.key, 'POST', '/orders', { external_id: 'free-2', status: 'wc-processing', totals: { total: 5 } });
    expect(synced.statusCode, synced.body).toBe(201);
    expect((await call(s.secret, 'PATCH', `/orders/${synced.json().order.id}`, { status: 'shipped' })).statusCode).toBe(200);
    const updates = (await call(shop.key, 'GET', '/connection/updates')).json().updates;
    expect(updates.map((u: { external_id: string; status: string }) => [u.external_id, u.status])).toEqual([['free-2', 'shipped']]);
    expect((await call(shop.key, 'GET', '/connection')).json().connection.orders_synced).toBe(1);
  });
});

/** Every port a compose file publishes, as {service, hostIp, published, target}, from the short or the long syntax. */
function publishedPorts(composeText: string) {
  const compose = parseYaml(composeText) as { services: Record<string, { ports?: (string | number | Record<string, unknown>)[] }> };
  return Object.entries(compose.services).flatMap(([service, def]) =>
    (def.ports ?? []).map((entry) => {
      if (typeof entry === 'object') {
        return { service, hostIp: String(entry.host_ip ?? ''), published: String(entry.published ?? ''), target: String(entry.target) };
      }
      const parts = String(entry).split(':');
      const target = parts.pop()!;
      const published = parts.pop() ?? '';
      return { service, hostIp: parts.join(':'), published, target };
    }),
  );
}
const temporalPorts = (text: string) => publishedPorts(text).filter((p) => p.service === 'temporal' || /^(7233|8233)$/.test(p.target));

describe('docker compose publishes the Temporal UI (no sign-in) on 127.0.0.1 only (CTR-19)', () => {
  it('every port of the Temporal container that docker-compose.yml publishes is bound to 127.0.0.1, and the UI is one of them', () => {
    for (const file of ['docker-compose.yml', 'docker-compose.prod.yml']) {
      const ports = temporalPorts(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
      for (const p of ports) expect(p.hostIp, `${file}: ${JSON.stringify(p)}`).toBe('127.0.0.1');
      if (file === 'docker-compose.yml') expect(ports.map((p) => p.target)).toContain('8233');
    }
  });

  it('the check fails for a UI published on every interface, in either syntax', () => {
    const open = `services:\n  temporal:\n    ports:\n      - "8233:8233"\n      - target: 7233\n        published: 7233\n`;
    expect(temporalPorts(open).map((p) => p.hostIp)).toEqual(['', '']);
    const bound = `services:\n  temporal:\n    ports:\n      - target: 8233\n        published: 8233\n        host_ip: 127.0.0.1\n`;
    expect(temporalPorts(bound)).toEqual([{ service: 'temporal', hostIp: '127.0.0.1', published: '8233', target: '8233' }]);
  });
});
