import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '@store-commerce/plugin-kit/conformance';
import { ADMIN_COOKIE, ReferencePlugin } from '../../examples/plugin/plugin.js';
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

    // The connect pages are a signed-in shop admin's: without the session, no redirect and no exchange.
    expect((await fetch(plugin.startUrl(), { redirect: 'manual' })).status).toBe(401);
    const admin = { cookie: `${ADMIN_COOKIE}=${plugin.openAdminSession()}` };
    // The admin's browser: the plugin's start redirects to the service's connect page...
    const start = await fetch(plugin.startUrl(), { redirect: 'manual', headers: admin });
    const page = new URL(start.headers.get('location')!);
    expect(page.origin + page.pathname).toBe(`${t.baseUrl}/connect/platform_a`);
    expect((await fetch(page)).status).toBe(200);
    // ...the owner approves there (the service issues the code as the approval does), and the browser comes back.
    const { code } = await approveConnection(t.orm.em.fork(), { storeId: s.store.id, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
    const returnQuery = new URLSearchParams({ svc_code: code, state: page.searchParams.get('state')! });
    // The same return in a browser without the admin's session (a link sent to someone else) is refused.
    expect((await fetch(`${plugin.returnUrl()}?${returnQuery}`)).status).toBe(401);
    const back = await fetch(`${plugin.returnUrl()}?${returnQuery}`, { headers: admin });
    expect(back.status, await back.text()).toBe(200);
    expect(secret).toMatch(/^whsec_/);
    expect((await plugin.heartbeat(pushUrl)).status).toBe(200);

    const results = await runConformance({
      pushUrl,
      secret,
      returnUrl: plugin.returnUrl(),
      connectUrl: plugin.startUrl(),
      auth: admin,
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

  it("a completed connect to another store never replaces the plugin's credentials until the admin types that store's name", async () => {
    const first = await createTestStore(t.orm, { plan: 'paid' });
    const second = await createTestStore(t.orm, { plan: 'paid' });
    const siteUrl = `https://replace-${process.pid}.example`;
    const shop = new InMemoryShop();
    const plugin = new ReferencePlugin({ serviceUrl: t.baseUrl, platform: 'platform_a', siteUrl, shop });
    await plugin.listen();
    const admin = { cookie: `${ADMIN_COOKIE}=${plugin.openAdminSession()}` };
    const connect = async (storeId: string) => {
      const start = await fetch(plugin.startUrl(), { redirect: 'manual', headers: admin });
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
      const { code } = await approveConnection(t.orm.em.fork(), { storeId, platform: 'platform_a', siteUrl, ttlSeconds: 600 });
      const back = await fetch(`${plugin.returnUrl()}?${new URLSearchParams({ svc_code: code, state })}`, { headers: admin });
      return { status: back.status, body: (await back.json()) as Record<string, any> };
    };
    try {
      // Not connected yet: the first connect takes its credentials at once.
      expect(await connect(first.store.id)).toMatchObject({ status: 200, body: { connected: { id: first.store.id } } });
      const heldKey = (await plugin.client.api.me()).store.id;
      expect(heldKey).toBe(first.store.id);
      // A second connect (say, a link an attacker got the admin to follow) to another store: a confirmation, not a switch.
      const second1 = await connect(second.store.id);
      expect(second1).toMatchObject({
        status: 200,
        body: { confirm: { store: { id: second.store.id, name: second.store.name }, current: { id: first.store.id } } },
      });
      expect((await plugin.client.api.me()).store.id).toBe(first.store.id);
      const confirm = (token: string, storeName: string, headers: Record<string, string> = admin) =>
        fetch(`${plugin.returnUrl().replace(/\/connect-return$/, '/connect-confirm')}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, store_name: storeName }),
        });
      // Without the session, or with another name typed, nothing changes (and the confirmation is used up).
      expect((await confirm(second1.body.confirm.token, second.store.name, {})).status).toBe(401);
      expect((await confirm(second1.body.confirm.token, 'Some other name')).status).toBe(400);
      expect((await confirm(second1.body.confirm.token, second.store.name)).status).toBe(400);
      expect((await plugin.client.api.me()).store.id).toBe(first.store.id);
      // Connecting again and typing the new store's name switches.
      const second2 = await connect(second.store.id);
      const done = await confirm(second2.body.confirm.token, second.store.name);
      expect(done.status, await done.clone().text()).toBe(200);
      expect((await plugin.client.api.me()).store.id).toBe(second.store.id);
    } finally {
      await plugin.stop();
    }
  });
});
