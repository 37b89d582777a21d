import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '@store-commerce/plugin-kit/conformance';
import { ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop } from '../../examples/plugin/shop.js';
import { approveConnection } from '../../services/connections/codes.js';
import { bearer, createListeningTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore } from '../helpers/store.js';

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp();
});
afterAll(() => t.close());

const order = (externalId: string) => ({
  externalId,
  number: `#${externalId}`,
  status: 'processing',
  tracking: { number: null, courier: null, url: null },
  trackingPageUrl: null,
  notes: [],
});

describe('the conformance check against a plugin connected to the real service', () => {
  it("the reference plugin, connected through its own start and return pages, passes with the exchange's secret and still takes the service's pushes", async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const siteUrl = `https://conformance-${process.pid}.example`;
    const shop = new InMemoryShop();
    shop.addOrder(order('conformance-order'));
    const plugin = new ReferencePlugin({ serviceUrl: t.baseUrl, platform: 'platform_a', siteUrl, shop });
    // Watch the credentials the return page's exchange hands the plugin (the check needs the signing secret).
    let secret = '';
    const useCredentials = plugin.useCredentials.bind(plugin);
    plugin.useCredentials = (key, webhookSecret) => ((secret = webhookSecret), useCredentials(key, webhookSecret));
    const pushUrl = await plugin.listen();

    // The admin's browser: the plugin's start redirects to the service's connect page...
    const start = await fetch(plugin.startUrl(), { redirect: 'manual' });
    const page = new URL(start.headers.get('location')!);
    expect(page.origin + page.pathname).toBe(`${t.baseUrl}/connect/platform_a`);
    expect((await fetch(page)).status).toBe(200);
    // ...the owner approves there (the service issues the code as the approval does), and the browser comes back.
    const { code } = await approveConnection(t.orm.em.fork(), { storeId: s.store.id, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
    const back = await fetch(`${plugin.returnUrl()}?${new URLSearchParams({ svc_code: code, state: page.searchParams.get('state')! })}`);
    expect(back.status, await back.text()).toBe(200);
    expect(secret).toMatch(/^whsec_/);
    expect((await plugin.heartbeat(pushUrl)).status).toBe(200);

    const results = await runConformance({
      pushUrl,
      secret,
      returnUrl: plugin.returnUrl(),
      connectUrl: plugin.startUrl(),
      externalId: 'conformance-order',
    });
    expect(
      results.filter((r) => r.outcome === 'fail'),
      JSON.stringify(results, null, 2),
    ).toEqual([]);
    expect(shop.applyCount).toBe(4);

    // The service's own pushes are still verified and applied.
    shop.addOrder(order('after-check'));
    const sent = await plugin.client.sendOrder({
      external_id: 'after-check',
      number: '#after-check',
      status: 'wc-processing',
      totals: { total: 30 },
      customer: { name: 'Sam', phone: '+212612345678', country: 'MA' },
      payment: { is_cod: true },
    });
    expect(sent.status).toBe(201);
    const patched = await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${sent.body.order!.id}`,
      headers: bearer(s.secret),
      payload: { status: 'shipped' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    await eventually(() => shop.applyCount === 5, 45_000, "the service's push");
    expect(shop.orders.get('after-check')!.status).toBe('shipped');
    await plugin.stop();
  });
});
