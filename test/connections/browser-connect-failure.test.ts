// Connect failures in real headless Chromium: the owner approves a store at its plan's limit and the browser
// lands back on the shop's return_url with svc_error=plan_limit and the plugin's state; a request the page
// cannot use stays on an error page whose link goes back with svc_error=invalid_request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnedStore } from '../../services/accounts/stores.js';
import { startReceiver } from '../helpers/receiver.js';
import { createTestConnection } from '../helpers/store.js';
import { hasChromium, serveWithBrowser, watchPage, type Served } from '../dashboard/browser.js';
import { newEmail, PASSWORD } from '../dashboard/client.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

/** A stand-in for the shop's admin: answers every request and records it (the return_url lands here). */
const startShop = () =>
  startReceiver((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('back in the shop admin'));

const connectUrl = (site: string, returnUrl: string, state: string, platform = 'platform_a') =>
  `${s.base}/connect/${platform}?${new URLSearchParams({ site_url: site, return_url: returnUrl, state, name: 'Full shop', currency: 'EUR' })}`;

describe.runIf(hasChromium)('connect failures in a browser', () => {
  it('approving a store at its plan’s limit lands back on the shop with svc_error=plan_limit and state', { timeout: 60_000 }, async () => {
    const shop = await startShop();
    const site = shop.url('/');
    const returnUrl = shop.url('/wp-admin/admin.php?page=svc-connect');
    const context = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();
    const problems = watchPage(page, [s.base, site.replace(/\/$/, '')]);

    const email = newEmail('full');
    await page.goto(connectUrl(site, returnUrl, 'state-full'));
    await page.fill('#su-email', email);
    await page.fill('#su-password', PASSWORD);
    await page.click('button:has-text("Create my account")');
    await page.waitForSelector('legend:has-text("Connect it to")');

    // The owner's store already has its one free connected shop.
    const em = s.t.orm.em.fork();
    const [owner] = await em.execute<{ id: string }[]>(`select id from owners where email = ?`, [email]);
    const storeId = await createOwnedStore(em, owner!.id, { name: 'Full store', currency: 'EUR' });
    await createTestConnection(s.t.orm, storeId, 'platform_b', 'https://elsewhere.example');
    await page.reload();
    await page.check(`input[name=store][value="${storeId}"]`);
    await page.click('button:has-text("Approve")');
    await page.waitForURL(/svc_error=/);
    const back = new URL(page.url());
    expect(back.origin + back.pathname).toBe(shop.url('/wp-admin/admin.php'));
    expect(back.searchParams.get('page')).toBe('svc-connect');
    expect(back.searchParams.get('svc_error')).toBe('plan_limit');
    expect(back.searchParams.get('state')).toBe('state-full');
    expect(back.searchParams.has('svc_code')).toBe(false);
    expect(await page.textContent('body')).toContain('back in the shop admin');

    // A request for an unknown platform is never redirected: the page shows the problem and a link back.
    await page.goto(connectUrl(site, returnUrl, 'state-bad', 'platform_z'));
    expect(await page.textContent('h1')).toContain('cannot be used');
    expect(page.url()).toContain(`${s.base}/connect/platform_z`);
    await page.click('a:has-text("Back to")');
    await page.waitForURL(/svc_error=/);
    const bad = new URL(page.url());
    expect(bad.searchParams.get('svc_error')).toBe('invalid_request');
    expect(bad.searchParams.get('state')).toBe('state-bad');
    // The error page itself answers 400 (the browser logs it); nothing else went wrong.
    const expected = (p: string) =>
      p.startsWith('400 from GET ') || p === 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)';
    expect(problems.filter((p) => !expected(p))).toEqual([]);
    expect(problems.filter(expected)).toHaveLength(2);
    await context.close();
    await shop.close();
  });
});
