// The connect page in real headless Chromium: a plugin sends the admin's browser here, the owner signs up,
// approves, and the browser lands back on the shop with svc_code and state, which the plugin exchanges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.js';
import { hasChromium, screenshot, serveWithBrowser, watchPage, type Served } from './browser.js';
import { newEmail, PASSWORD } from './client.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

/** A stand-in for the shop's admin: answers every request and records it (the return_url lands here). */
const startShop = () =>
  startReceiver((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('back in the shop admin'));

const connectUrl = (site: string, returnUrl: string, state: string) =>
  `${s.base}/connect/platform_a?${new URLSearchParams({ site_url: site, return_url: returnUrl, state, name: 'Atlas Tea (shop)', currency: 'EUR', v: '1.4.2' })}`;

describe.runIf(hasChromium)('the connect page in a browser', () => {
  it(
    'takes the owner from the plugin redirect through sign-up and approval back to the shop with a code that exchanges',
    { timeout: 60_000 },
    async () => {
      const shop = await startShop();
      const site = shop.url('/');
      const returnUrl = shop.url('/wp-admin/admin.php?page=svc-connect&tab=1');
      const context = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
      const page = await context.newPage();
      const problems = watchPage(page, [s.base, site.replace(/\/$/, '')]);

      await page.goto(connectUrl(site, returnUrl, 'state-123'));
      expect(await page.locator('.dash-shop-url').textContent()).toBe(site);
      await page.fill('#su-email', newEmail('connect'));
      await page.fill('#su-password', PASSWORD);
      await page.click('button:has-text("Create my account")');
      await page.waitForSelector('legend:has-text("Connect it to")');
      expect(new URL(page.url()).pathname).toBe('/connect/platform_a');
      expect(await page.locator('.dash-shop-url').textContent()).toBe(site);
      expect(await page.isChecked('input[name=store][value=new]')).toBe(true);
      expect(await page.inputValue('#new-name')).toBe('Atlas Tea (shop)');
      await screenshot(page, 'connect');

      await page.click('button:has-text("Approve")');
      await page.waitForURL(/svc_code=/);
      const back = new URL(page.url());
      expect(back.origin + back.pathname).toBe(shop.url('/wp-admin/admin.php'));
      expect(back.searchParams.get('page')).toBe('svc-connect');
      expect(back.searchParams.get('tab')).toBe('1');
      expect(back.searchParams.get('state')).toBe('state-123');
      const code = back.searchParams.get('svc_code')!;
      expect(shop.received.some((r) => r.method === 'GET' && r.path.includes(`svc_code=${encodeURIComponent(code)}`))).toBe(true);

      const exchange = await fetch(`${s.base}/api/v1/connect/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, site_url: site }),
      });
      expect(exchange.status).toBe(200);
      const result = (await exchange.json()) as { api_key: string; store: { id: string; name: string; dashboard_url: string } };
      expect(result.api_key).toMatch(/^svc_live_sk_/);
      expect(result.store.name).toBe('Atlas Tea (shop)');
      expect(result.store.dashboard_url).toBe(`${s.base}/dashboard/stores/${result.store.id}`);
      const connection = await fetch(`${s.base}/api/v1/connection`, { headers: { authorization: `Bearer ${result.api_key}` } });
      expect(connection.status).toBe(200);
      const beat = await fetch(`${s.base}/api/v1/connection`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${result.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          plugin_version: '1.4.2',
          platform_version: '8.3.1',
          shop_name: 'Atlas Tea (shop)',
          site_url: site,
          push_url: null,
        }),
      });
      expect(beat.status).toBe(200);

      // The store's dashboard_url opens in the same browser, on the new connection.
      await page.goto(`${result.store.dashboard_url}/connections`);
      expect(await page.locator('h1').textContent()).toBe('Connected shops');
      const card = await page.locator('section.card').first().textContent();
      for (const fact of [site, 'platform_a', 'Active', '1.4.2', '8.3.1', 'pull only', '0 waiting, 0 failed']) expect(card).toContain(fact);
      await screenshot(page, 'dashboard-connections');

      // A second request to connect, declined: back to the shop with svc_error and the state, no code.
      await page.goto(connectUrl(site, returnUrl, 'state-456'));
      await page.click('button:has-text("Decline")');
      await page.waitForURL(/svc_error=/);
      const declined = new URL(page.url());
      expect(declined.searchParams.get('svc_error')).toBe('access_denied');
      expect(declined.searchParams.get('state')).toBe('state-456');
      expect(declined.searchParams.has('svc_code')).toBe(false);

      expect(problems).toEqual([]);
      await context.close();
      await shop.close();
    },
  );
});
