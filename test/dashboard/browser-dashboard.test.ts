// The dashboard in real headless Chromium: sign up, a store, a key used against the API, a webhook and its
// deliveries, an order's status change, and revoking the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { hasChromium, screenshot, serveWithBrowser, watchPage, type Served } from './browser.js';
import { newEmail, PASSWORD } from './client.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

/** The few fields of API answers these tests read. */
type Json = { store: { id: string }; order: { id: string; status: string; tracking: Record<string, string | null> } };
const api = async (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${s.base}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });

describe.runIf(hasChromium)('the dashboard in a browser', () => {
  it(
    'signs up, creates a key that works on the API, adds a webhook that receives deliveries, changes an order, revokes the key',
    { timeout: 120_000 },
    async () => {
      const receiver = await startReceiver();
      const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      const problems = watchPage(page, [s.base]);

      // Signed out, the dashboard leads to sign-in; from there to sign-up.
      await page.goto(`${s.base}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      await screenshot(page, 'dashboard-sign-in');
      await page.click('text=Create one');
      await page.fill('#su-email', newEmail('browser'));
      await page.fill('#su-password', PASSWORD);
      await page.click('button:has-text("Create my account")');
      await page.waitForSelector('h1:has-text("Your stores")');

      await page.fill('#new-name', 'Atlas Tea House');
      await page.fill('#new-currency', 'MAD');
      await page.click('button:has-text("Create the store")');
      await page.waitForSelector('h1:has-text("Overview")');
      const storeId = /\/dashboard\/stores\/([0-9a-f-]{36})/.exec(page.url())![1]!;

      // A secret key with webhooks:write as well, shown once, works against the API.
      await page.click('nav.dash-tabs >> text=Keys');
      await page.check('input[name=scopes][value="webhooks:write"]');
      await page.click('button:has-text("Create the key")');
      const key = await page.inputValue('#new-key');
      expect(key).toMatch(/^svc_live_sk_[0-9a-f]{48}$/);
      // The copy button exists only where the hashed script runs; it puts the key on the clipboard.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.base });
      await page.click('button[data-copy="new-key"]');
      await page.waitForSelector('button[data-copy="new-key"]:has-text("Copied")');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
      await screenshot(page, 'dashboard-keys');
      const me = await api('/me', key);
      expect(me.status).toBe(200);
      expect(((await me.json()) as Json).store.id).toBe(storeId);
      await page.goto(`${s.base}/dashboard/stores/${storeId}/keys`);
      expect(await page.locator('#new-key').count()).toBe(0);
      expect(await page.locator('tbody').textContent()).toContain(key.slice(0, 16));

      // A webhook endpoint on a loopback receiver; its secret shown once.
      await page.click('nav.dash-tabs >> text=Webhooks');
      await page.fill('#hook-url', receiver.url('/hooks/atlas'));
      await page.click('button:has-text("Add the endpoint")');
      expect(await page.inputValue('#new-secret')).toMatch(/^whsec_/);

      const created = await api('/orders', key, {
        method: 'POST',
        body: JSON.stringify({
          external_id: 'atlas-1',
          number: 'A-1001',
          totals: { total: 59.97 },
          currency: 'MAD',
          customer: { name: 'Amina <b>B.</b>' },
          items: [{ name: 'Mint tea', quantity: 3, unit_price: 19.99 }],
        }),
      });
      expect(created.status).toBe(201);
      const orderId = ((await created.json()) as Json).order.id as string;
      await eventually(() => receiver.received.length >= 1, 20_000, 'the webhook delivery');
      await eventually(
        async () => {
          // A GET, not reload(): the page on screen is the answer to the form's POST.
          await page.goto(`${s.base}/dashboard/stores/${storeId}/webhooks`);
          return (await page.locator('td.ok:has-text("delivered")').count()) > 0;
        },
        20_000,
        'the delivery listed as delivered',
      );
      expect(await page.locator('table.dash-compact tbody').first().textContent()).toContain('order.created');
      await screenshot(page, 'dashboard-webhooks');
      await page.locator('button:has-text("Send again")').first().click();
      await page.waitForSelector('text=Sent again');
      await eventually(() => receiver.received.length >= 2, 20_000, 'the delivery sent again');

      // The order in the table; its detail; a status change with tracking and a comment.
      await page.click('nav.dash-tabs >> text=Orders');
      await page.selectOption('#f-status', 'pending');
      await page.click('button:has-text("Filter")');
      expect(page.url()).toContain('status=pending');
      await screenshot(page, 'dashboard-orders');
      await page.click('a:has-text("A-1001")');
      await page.selectOption('#o-status', 'shipped');
      await page.fill('#o-number', 'AWB-77');
      await page.fill('#o-courier', 'Amana');
      await page.fill('#o-comment', 'Left the warehouse');
      await page.click('button:has-text("Save")');
      await page.waitForSelector('text=Saved.');
      const history = await page.locator('h2:has-text("Status history") + div').textContent();
      expect(history).toContain('Shipped');
      expect(history).toContain('Left the warehouse');
      await screenshot(page, 'dashboard-order');
      const order = ((await (await api(`/orders/${orderId}`, key)).json()) as Json).order;
      expect(order.status).toBe('shipped');
      expect(order.tracking).toMatchObject({ number: 'AWB-77', courier: 'Amana' });

      // Settings, then the overview.
      await page.click('nav.dash-tabs >> text=Settings');
      await screenshot(page, 'dashboard-settings');
      await page.click('nav.dash-tabs >> text=Overview');
      await screenshot(page, 'dashboard-overview');

      // Revoking the key: the API refuses it from the next request.
      await page.click('nav.dash-tabs >> text=Keys');
      await page.click('button:has-text("Revoke")');
      // Nothing happens on one click: the confirmation page names the key first.
      await page.waitForSelector('h1:has-text("Revoke this key?")');
      expect(await page.locator('#confirm-item').textContent()).toContain(key.slice(0, 16));
      expect((await api('/me', key)).status).toBe(200);
      await screenshot(page, 'dashboard-confirm');
      await page.click('button:has-text("Revoke the key")');
      await page.waitForSelector('text=The key is revoked');
      expect((await api('/me', key)).status).toBe(401);

      // The same pages on a phone: nothing wider than the screen except scrollable tables.
      const phone = await s.browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        storageState: await context.storageState(),
      });
      const small = await phone.newPage();
      await small.goto(`${s.base}/dashboard/stores/${storeId}/orders/${orderId}`);
      const overflow = await small.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      // One pixel of slack: at a device scale of 2, half-pixel widths round up in scrollWidth.
      expect(overflow).toBeLessThanOrEqual(1);
      await screenshot(small, 'dashboard-phone');
      await phone.close();

      expect(problems).toEqual([]);
      await context.close();
      await receiver.close();
    },
  );
});
