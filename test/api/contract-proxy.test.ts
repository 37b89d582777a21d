// Contract in CI: a representative flow (all 24 operations, success and error answers, plus errors no route makes)
// sent through a validating proxy on loopback that checks every answer against the service's own /openapi.json.
// The proxy is in-test (test/helpers/validating-proxy.ts, ajv on the document) rather than an external mock server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient, createStoreCommerceClient, type StoreCommerceClient } from '../../sdk/src/index.js';
import { ENDPOINTS } from '../../api/access.js';
import { approveConnection } from '../../services/connections/codes.js';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct } from '../catalog/fixtures.js';
import { createResponseChecker, startValidatingProxy } from '../helpers/validating-proxy.js';

let t: TestApp & { baseUrl: string };
let proxy: Awaited<ReturnType<typeof startValidatingProxy>>;
let doc: Record<string, any>;
let s: TestStore;
let client: StoreCommerceClient;
beforeAll(async () => {
  t = await createListeningTestApp();
  doc = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as Record<string, any>;
  proxy = await startValidatingProxy(t.baseUrl, doc);
  s = await createTestStore(t.orm, { plan: 'paid' });
  const { key } = await addKey(t.orm, s.store.id, {
    kind: 'secret',
    scopes: ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read', 'webhooks:write'],
  });
  client = createStoreCommerceClient({ baseUrl: proxy.baseUrl, apiKey: key, retry: false });
});
afterAll(async () => {
  await proxy?.close();
  await t.close();
});

/** Runs a call that must fail, keeping its status (the proxy has already checked the answer). */
const fails = (pending: Promise<unknown>) =>
  pending.then(
    () => 0,
    (e: { status?: number }) => e.status ?? -1,
  );

describe('every answer of a representative flow agrees with the document', () => {
  it('drives all 24 operations through the SDK, with success and error answers', async () => {
    const unknown = crypto.randomUUID();
    // Store and orders.
    await client.me();
    expect(await fails(createStoreCommerceClient({ baseUrl: proxy.baseUrl, apiKey: `svc_live_sk_${'0'.repeat(48)}` }).me())).toBe(401);
    const created = await client.orders.upsert({
      external_id: 'cp-1',
      number: 'CP-1',
      totals: { total: 10 },
      customer: { name: 'Ana', email: 'ana@example.com' },
    });
    await client.orders.upsert({ external_id: 'cp-1', number: 'CP-1', totals: { total: 10 } });
    await client.orders.upsert({ external_id: 'cp-skip', totals: { total: 1 }, test: true });
    expect(await fails(client.orders.upsert({ external_id: 'cp-bad', totals: {} as never }))).toBe(400);
    await client.orders.batch([{ external_id: 'cp-2', totals: { total: 2 } }, { totals: 'nope' } as never], { backfill: true });
    expect(await fails(client.orders.batch([]))).toBe(400);
    await client.orders.list({ limit: 1 }).all();
    expect(await fails(client.orders.list({ limit: 0 }).page())).toBe(400);
    const id = created.order!.id;
    await client.orders.get(id);
    expect(await fails(client.orders.get(unknown))).toBe(404);
    await client.orders.update(id, { status: 'confirmed', tracking: { number: 'T-1', url: 'https://track.example/T-1' }, comment: 'ok' });
    expect(await fails(client.orders.update(id, { tracking: { url: 'javascript:alert(1)' } }))).toBe(400);
    await client.orders.update(id, { status: 'cancelled' });
    expect(await fails(client.orders.update(id, { status: 'shipped' }))).toBe(409);
    // Tracking, webhooks.
    await client.tracking.lookup({ order: 'CP-1' });
    expect(await fails(client.tracking.lookup({ order: 'NO-SUCH' }))).toBe(404);
    const hook = await client.webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['order.created'] });
    expect(await fails(client.webhooks.create({ url: 'http://127.0.0.1:9/hook' }))).toBe(409);
    expect(await fails(client.webhooks.create({ url: 'ftp://hooks.public.example/x' }))).toBe(400);
    await client.webhooks.list();
    await client.webhooks.delete(hook.id);
    expect(await fails(client.webhooks.delete(unknown))).toBe(404);
    await client.orders.archive(id);
    expect(await fails(client.orders.archive(unknown))).toBe(404);
    // Catalogue and checkout, the publishable key from its website.
    const product = await addProduct(t, s.store.id, { name: 'Mug', price: 7, category: 'Ware' });
    const browser = createBrowserClient({
      baseUrl: proxy.baseUrl,
      publishableKey: s.publishable,
      headers: { origin: s.origin },
      retry: false,
    });
    await browser.products.list().all();
    await browser.products.get(product.id);
    expect(await fails(browser.products.get(unknown))).toBe(404);
    await browser.categories();
    await browser.checkout.createSession({ items: [{ product_id: product.id, quantity: 1 }] });
    expect(await fails(browser.checkout.createSession({ items: [{ product_id: unknown, quantity: 1 }] }))).toBe(422);
    expect(
      await fails(
        createBrowserClient({
          baseUrl: proxy.baseUrl,
          publishableKey: s.publishable,
          headers: { origin: 'https://evil.example', 'sec-fetch-mode': 'cors' },
        }).categories(),
      ),
    ).toBe(403);
    // A plugin: exchange, connection routes, external products, disconnect.
    const siteUrl = `https://cp-${process.pid}.example`;
    const { code } = await approveConnection(t.orm.em.fork(), { storeId: s.store.id, platform: 'platform_b', siteUrl, ttlSeconds: 600 });
    const anonymous = createStoreCommerceClient({ baseUrl: proxy.baseUrl, retry: false });
    expect(await fails(anonymous.connection.exchange({ code: 'not-a-code', site_url: siteUrl }))).toBe(400);
    const exchanged = await anonymous.connection.exchange({ code, site_url: siteUrl });
    const plugin = createStoreCommerceClient({ baseUrl: proxy.baseUrl, apiKey: exchanged.api_key, retry: false });
    await plugin.connection.heartbeat({ plugin_version: '1.2.3', site_url: siteUrl, push_url: null });
    expect(await fails(plugin.connection.heartbeat({ site_url: 'https://staging.other.example' }))).toBe(409);
    await plugin.connection.get();
    expect(await fails(client.connection.get())).toBe(403);
    await plugin.orders.upsert({ external_id: 'B-1', status: 'open', totals: { total: 3 }, customer: { name: 'B' } });
    await plugin.connection.updates.pull({ limit: 10 });
    expect(await fails(plugin.connection.updates.pull({ limit: 0 }))).toBe(400);
    await plugin.connection.updates.ack({ applied: [], failed: [] });
    await plugin.externalProducts.upsertBatch([{ external_id: 'p-1', name: 'Shop mug', price: 4 }, { name: '' } as never]);
    expect(await fails(plugin.externalProducts.upsertBatch([]))).toBe(400);
    await plugin.externalProducts.delete('p-1');
    expect(await fails(client.externalProducts.delete('p-1'))).toBe(403);
    await plugin.connection.disconnect();
    expect(await fails(plugin.connection.disconnect())).toBe(401);
    await anonymous.openapi();

    const operations = new Set(proxy.exchanges.map((e) => e.operation));
    expect([...operations].filter(Boolean).sort()).toEqual(Object.keys(ENDPOINTS).sort());
    expect(proxy.exchanges.filter((e) => e.problems.length > 0)).toEqual([]);
  });

  it('errors no route makes are in the envelope too: unknown path, malformed URL and JSON, wrong type, too large', async () => {
    const before = proxy.exchanges.length;
    const auth = { authorization: `Bearer ${s.secret}`, 'content-type': 'application/json' };
    const statuses = [
      (await fetch(`${proxy.origin}/api/v1/no-such-route`)).status,
      (await fetch(`${proxy.origin}/api/v1/orders/%E0%A4%A`, { headers: auth })).status,
      (await fetch(`${proxy.baseUrl}/orders`, { method: 'POST', headers: auth, body: '{"external_id": ' })).status,
      (await fetch(`${proxy.baseUrl}/orders`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'hi' })).status,
      (await fetch(`${proxy.baseUrl}/orders`, { method: 'POST', headers: auth, body: JSON.stringify({ pad: 'x'.repeat(1_100_000) }) }))
        .status,
      (await fetch(`${proxy.baseUrl}/orders?api_key=${s.secret}`)).status,
    ];
    expect(statuses).toEqual([404, 400, 400, expect.any(Number), 413, expect.any(Number)]);
    expect(statuses[3]).toBeGreaterThanOrEqual(400);
    const mine = proxy.exchanges.slice(before);
    expect(mine).toHaveLength(6);
    expect(mine.filter((e) => e.problems.length > 0)).toEqual([]);
  });
});

describe('the proxy is not blind', () => {
  const headers = {
    'x-request-id': 'req_1',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': '1',
    'cache-control': 'no-store',
    'content-type': 'application/json',
  };
  it('flags a body that disagrees, an undocumented status, an error outside the envelope and a missing header', () => {
    const check = createResponseChecker(doc);
    expect(check('GET', '/api/v1/orders/x', 200, headers, JSON.stringify({ order: { id: 'x' } })).problems).not.toEqual([]);
    expect(check('GET', '/api/v1/me', 418, headers, '{}').problems.join()).toMatch(/not documented/);
    expect(check('GET', '/api/v1/nowhere', 404, headers, '{"message":"Not Found"}').problems.join()).toMatch(/envelope/);
    const { 'x-request-id': _omitted, ...fewer } = headers;
    expect(check('GET', '/api/v1/categories', 200, fewer, '{"data":[]}').problems).toEqual(['header x-request-id missing']);
    expect(check('GET', '/api/v1/categories', 200, headers, '{"data":[]}').problems).toEqual([]);
  });
});
