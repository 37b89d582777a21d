import { approveConnection } from '../../services/connections/codes.js';
import { ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop } from '../../examples/plugin/shop.js';
import type { TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';

let shops = 0;

/** A paid store (room for several shops) and a plugin connected to it through a real code exchange. */
export async function connectedPlugin(
  t: TestApp & { baseUrl: string },
  opts: { platform?: 'platform_a' | 'platform_b'; push?: boolean } = {},
) {
  const s = await createTestStore(t.orm, { plan: 'paid' });
  const siteUrl = `https://shop-${process.pid}-${++shops}.example`;
  const shop = new InMemoryShop();
  const plugin = new ReferencePlugin({ serviceUrl: t.baseUrl, platform: opts.platform ?? 'platform_a', siteUrl, shop });
  const { code } = await approveConnection(t.orm.em.fork(), {
    storeId: s.store.id,
    platform: opts.platform ?? 'platform_a',
    siteUrl,
    ttlSeconds: 600,
  });
  const exchanged = await plugin.client.exchange(code, siteUrl);
  if (exchanged.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(exchanged.body)}`);
  plugin.useCredentials(exchanged.body.api_key, exchanged.body.webhook_secret);
  const pushUrl = opts.push === false ? null : await plugin.listen();
  const beat = await plugin.heartbeat(pushUrl);
  if (beat.status !== 200) throw new Error(`heartbeat failed: ${JSON.stringify(beat.body)}`);
  return { ...s, siteUrl, shop, plugin, connectionId: exchanged.body.connection_id, apiKey: exchanged.body.api_key };
}

/** An order in the shop, mirrored into the service by the plugin. */
export async function mirroredOrder(c: Awaited<ReturnType<typeof connectedPlugin>>, externalId: string) {
  c.shop.addOrder({
    externalId,
    number: `#${externalId}`,
    status: 'processing',
    tracking: { number: null, courier: null, url: null },
    trackingPageUrl: null,
    notes: [],
  });
  const sent = await c.plugin.client.sendOrder({
    external_id: externalId,
    number: `#${externalId}`,
    status: 'wc-processing',
    totals: { total: 30 },
    customer: { name: 'Sam', phone: '+212612345678', country: 'MA' },
    payment: { is_cod: true },
  });
  if (sent.status !== 201) throw new Error(`order not created: ${JSON.stringify(sent.body)}`);
  return sent.body.order!.id;
}
