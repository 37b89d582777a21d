// The SDK against the live service: a headless shop's whole path, and webhook deliveries checked by the SDK's helpers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  createBrowserClient,
  createStoreCommerceClient,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '../../sdk/src/index.js';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { addProducts, postCart, SHOPPER } from '../catalog/fixtures.js';
import { eventually, startReceiver } from '../helpers/receiver.js';

let t: TestApp & { baseUrl: string };
let s: TestStore;
let server: ReturnType<typeof createStoreCommerceClient>;
beforeAll(async () => {
  t = await createListeningTestApp();
  s = await createTestStore(t.orm, { plan: 'paid', currency: 'MAD' });
  server = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: s.secret });
});
afterAll(() => t.close());

describe('a headless shop through the SDK: products, checkout session, order, orders listed by iteration', () => {
  it('walks the catalogue page by page, opens a cart with the publishable key, and finds the placed order', async () => {
    await addProducts(
      t,
      s.store.id,
      ['Tea', 'Pot', 'Cup', 'Tray', 'Spoon'].map((name, i) => ({ name, price: 10 + i, category: i % 2 ? 'Ware' : 'Tea', stock: 5 })),
    );
    // In the browser: the publishable key, from a website on its allowed list.
    const browser = createBrowserClient({ baseUrl: `${t.baseUrl}/api/v1`, publishableKey: s.publishable, headers: { origin: s.origin } });
    const names: string[] = [];
    for await (const product of browser.products.list({ limit: 2 })) names.push(product.name);
    expect(names).toEqual(['Spoon', 'Tray', 'Cup', 'Pot', 'Tea']);
    expect((await browser.categories()).sort()).toEqual(['Tea', 'Ware']);
    const [tea] = (await browser.products.list({ category: 'Tea', limit: 100 }).page()).data.filter((p) => p.name === 'Tea');
    expect(await browser.products.get(tea!.id)).toMatchObject({ name: 'Tea', price: 10 });

    const session = await browser.checkout.createSession({ items: [{ product_id: tea!.id, quantity: 2 }] });
    expect(session.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    // The shopper places the cart on the service's own page.
    expect((await postCart(t, session.url, { ...SHOPPER })).statusCode).toBe(303);

    const seen: string[] = [];
    for await (const order of server.orders.list({ source: 'native', limit: 1 })) seen.push(order.id);
    expect(seen).toHaveLength(1);
    const order = await server.orders.get(seen[0]!);
    expect(order).toMatchObject({ source: 'native', status: 'pending', items: [{ name: 'Tea', quantity: 2, product_id: tea!.id }] });
    const tracked = await browser.tracking.lookup({ order: order.order_number! });
    expect(tracked).toBeTruthy();
  });

  it('iterates every page of the orders list, newest first, and all() collects the same', async () => {
    for (let i = 1; i <= 5; i++) await server.orders.upsert({ external_id: `sdk-${i}`, totals: { total: i } });
    const ids: (string | null)[] = [];
    for await (const order of server.orders.list({ source: 'api', limit: 2 })) ids.push(order.external_id);
    expect(ids).toEqual(['sdk-5', 'sdk-4', 'sdk-3', 'sdk-2', 'sdk-1']);
    expect((await server.orders.list({ source: 'api', limit: 3 }).all()).map((o) => o.external_id)).toEqual(ids);
    const first = await server.orders.list({ source: 'api', limit: 2 }).page();
    expect(first).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
  });
});

describe('webhook deliveries verify with the SDK helpers as typed events', () => {
  it('accepts a real delivery by its Standard Webhooks headers as the documented typed event (X-Service-Signature alone only on opt-in); refuses a changed body or an old one', async () => {
    const receiver = await startReceiver();
    const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:write', 'webhooks:write'] });
    const hooks = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: key });
    try {
      const hook = await hooks.webhooks.create({ url: receiver.url('/hook'), events: ['order.created'] });
      expect(hook.secret).toMatch(/^whsec_/);
      await hooks.orders.upsert({ external_id: 'hooked-1', totals: { total: 12.5 } });
      await eventually(() => receiver.received.length > 0, 45_000, 'the delivery');
      const delivery = receiver.received[0]!;
      const options = { secret: hook.secret, rawBody: delivery.body, headers: delivery.headers };
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
      // The typed event (WebhookEvent, from the document's webhooks section): no cast needed to reach the order.
      const body: WebhookEvent = await verifyWebhook(options);
      expect(body.type).toBe('order.created');
      expect(body.id).toBe(delivery.headers['webhook-id']);
      expect(body.data.order).toMatchObject({ external_id: 'hooked-1', totals: { total: 12.5 } });
      // What was sent is what the document describes: the delivery body against its WebhookDelivery schema.
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      ajv.addSchema({ ...(await hooks.openapi()), $id: 'https://doc.invalid/openapi.json' });
      const documented = ajv.compile({ $ref: 'https://doc.invalid/openapi.json#/components/schemas/WebhookDelivery' });
      expect(documented(JSON.parse(delivery.body)), JSON.stringify(documented.errors)).toBe(true);
      // Without the Standard Webhooks headers it is refused, unless the body-only X-Service-Signature is opted into.
      const { 'webhook-signature': _s, 'webhook-id': _i, 'webhook-timestamp': _t, ...serviceOnly } = delivery.headers;
      await expect(verifyWebhook({ ...options, headers: serviceOnly })).rejects.toThrow(WebhookVerificationError);
      expect(await verifyWebhook({ ...options, headers: serviceOnly, allowBodyOnlySignature: true })).toEqual(body);
      // Raw body bytes, as a Buffer, verify the same.
      expect(await verifyWebhook({ ...options, rawBody: Buffer.from(delivery.body) })).toEqual(body);

      const changed = delivery.body.replace('12.5', '99');
      await expect(verifyWebhook({ ...options, rawBody: changed })).rejects.toThrow(WebhookVerificationError);
      await expect(verifyWebhook({ ...options, headers: serviceOnly, rawBody: changed, allowBodyOnlySignature: true })).rejects.toThrow(
        WebhookVerificationError,
      );
      await expect(verifyWebhook({ ...options, now: Date.now() + 6 * 60_000 })).rejects.toThrow(/timestamp/);
      await expect(verifyWebhook({ ...options, secret: `whsec_${btoa('another secret of 32 bytes......')}` })).rejects.toThrow(
        WebhookVerificationError,
      );
      expect(await hooks.webhooks.delete(hook.id)).toEqual({ id: hook.id, deleted: true });
    } finally {
      await receiver.close();
    }
  });
});
