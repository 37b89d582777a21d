// The SDK as a plugin uses it: connect code exchange, orders with the connection key, updates pulled and acknowledged,
// and pushed updates verified by the SDK's helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreCommerceClient, verifyPushedUpdates, type components } from '../../sdk/src/index.js';
import { approveConnection } from '../../services/connections/codes.js';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';
import { eventually, startReceiver } from '../helpers/receiver.js';

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp();
});
afterAll(() => t.close());

let shops = 0;
/** A store, a code approved for a shop (as the connect page does), and the SDK clients of the store and the plugin. */
async function connect() {
  const s = await createTestStore(t.orm, { plan: 'paid' });
  const siteUrl = `https://sdk-shop-${process.pid}-${++shops}.example`;
  const { code } = await approveConnection(t.orm.em.fork(), { storeId: s.store.id, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
  const anonymous = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1` });
  const exchanged = await anonymous.connection.exchange({ code, site_url: siteUrl });
  const plugin = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: exchanged.api_key });
  const store = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: s.secret });
  return { siteUrl, exchanged, plugin, store, anonymous, code };
}

describe('a plugin through the SDK: exchange, upsert with the connection key, updates pulled and acknowledged', () => {
  it('exchanges the code once, mirrors an order, and pulls then acknowledges the shipment made on the service', async () => {
    const c = await connect();
    expect(c.exchanged).toMatchObject({ api_key: expect.stringMatching(/^svc_live_sk_/), webhook_secret: expect.any(String) });
    // Single use: the second exchange is refused, typed.
    await expect(c.anonymous.connection.exchange({ code: c.code, site_url: c.siteUrl })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
    });

    const beat = await c.plugin.connection.heartbeat({ plugin_version: '1.0.0', site_url: c.siteUrl, push_url: null });
    expect(beat.connection).toMatchObject({ platform: 'platform_a', status: 'active' });
    const upserted = await c.plugin.orders.upsert({
      external_id: 'W-1',
      number: '#W-1',
      status: 'wc-processing',
      totals: { total: 30 },
      customer: { name: 'Sam', phone: '+212612345678' },
    });
    expect(upserted).toMatchObject({ action: 'created', order: { source: 'platform_a', status: 'confirmed' } });

    await c.store.orders.update(upserted.order!.id, { status: 'shipped', tracking: { number: 'AWB-9', courier: 'Speedy' } });
    let updates: components['schemas']['Update'][] = [];
    await eventually(async () => (updates = await c.plugin.connection.updates.pull()).length > 0, 20_000, 'the update');
    expect(updates[0]).toMatchObject({ external_id: 'W-1', status: 'shipped', tracking: { number: 'AWB-9' } });
    expect(await c.plugin.connection.updates.ack({ applied: [updates[0]!.id] })).toEqual({ acknowledged: 1 });
    expect(await c.plugin.connection.updates.pull()).toEqual([]);
    expect((await c.plugin.connection.get()).connection.orders_synced).toBe(1);

    expect(await c.plugin.connection.disconnect()).toEqual({ ok: true });
    await expect(c.plugin.connection.get()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('a pushed update verifies with verifyPushedUpdates and is acknowledged by the reply', async () => {
    const c = await connect();
    const verified: unknown[] = [];
    const receiver = await startReceiver(async (req, res) => {
      try {
        const body = (await verifyPushedUpdates({ secret: c.exchanged.webhook_secret, rawBody: req.body, headers: req.headers })) as {
          updates: { id: string }[];
        };
        verified.push(body);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ applied: body.updates.map((u) => u.id), failed: [] }));
      } catch {
        res.writeHead(401).end();
      }
    });
    try {
      await c.plugin.connection.heartbeat({ push_url: receiver.url('/push') });
      const { order } = await c.plugin.orders.upsert({
        external_id: 'W-2',
        status: 'processing',
        totals: { total: 5 },
        customer: { name: 'A' },
      });
      await c.store.orders.update(order!.id, { status: 'shipped' });
      await eventually(() => verified.length > 0, 45_000, 'a verified push');
      expect(verified[0]).toMatchObject({ updates: [{ external_id: 'W-2', status: 'shipped' }] });
      await eventually(async () => (await c.plugin.connection.updates.pull()).length === 0, 10_000, 'acknowledged by the reply');
      // A stale or altered push is refused by the same helper.
      const push = receiver.received[0]!;
      await expect(
        verifyPushedUpdates({
          secret: c.exchanged.webhook_secret,
          rawBody: push.body,
          headers: push.headers,
          now: Date.now() + 10 * 60_000,
        }),
      ).rejects.toThrow(/timestamp/);
      await expect(
        verifyPushedUpdates({ secret: c.exchanged.webhook_secret, rawBody: push.body + ' ', headers: push.headers }),
      ).rejects.toThrow(/does not match/);
    } finally {
      await receiver.close();
    }
  });
});
