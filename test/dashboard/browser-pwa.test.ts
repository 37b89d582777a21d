// The dashboard as an installable web app in real headless Chromium: the manifest link, the service
// worker registering, the notifications button. (Subscribing is not clicked here: it would ask the
// browser vendor's push service, outside this machine. test/push/ covers the subscription and the push.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, screenshot, serveWithBrowser, watchPage, type Served } from './browser.js';
import { newEmail, PASSWORD } from './client.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

describe.runIf(hasChromium)('the dashboard as an installable web app', () => {
  it(
    'links its manifest, registers its service worker and offers new-order notifications, within the page CSP',
    { timeout: 90_000 },
    async () => {
      const context = await s.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      const problems = watchPage(page, [s.base]);

      await page.goto(`${s.base}/dashboard/sign-up`);
      await page.fill('#su-email', newEmail('pwa'));
      await page.fill('#su-password', PASSWORD);
      await page.click('button:has-text("Create my account")');
      await page.waitForSelector('h1:has-text("Your stores")');
      await page.fill('#new-name', 'Atlas Phone Shop');
      await page.fill('#new-currency', 'MAD');
      await page.click('button:has-text("Create the store")');
      await page.waitForSelector('h1:has-text("Overview")');
      expect(await page.getAttribute('link[rel=manifest]', 'href')).toBe('/dashboard/manifest.webmanifest');

      await page.click('nav.dash-tabs >> text=Notifications');
      await page.waitForSelector('h1:has-text("Notifications")');
      expect(await page.getAttribute('link[rel=manifest]', 'href')).toBe('/dashboard/manifest.webmanifest');

      // The page script registers /dashboard/sw.js for the whole dashboard and it becomes active.
      // (Browser code as text: the tests are typed for Node, without the DOM's types.)
      const worker = await page.evaluate(
        `navigator.serviceWorker.ready.then((r) => ({ script: r.active && r.active.scriptURL, scope: r.scope }))`,
      );
      expect(worker).toEqual({ script: `${s.base}/dashboard/sw.js`, scope: `${s.base}/dashboard/` });

      // The button shows once the browser can do push (it is hidden without the script).
      const button = page.locator('#push-toggle');
      await button.waitFor({ state: 'visible' });
      expect(await button.textContent()).toBe('Turn on notifications for new orders');
      expect(await button.getAttribute('data-key')).toMatch(/^[A-Za-z0-9_-]{87}$/);
      await screenshot(page, 'dashboard-notifications');

      // The manifest and its icons as the browser reads them; Chromium finds nothing that stops installing.
      const manifest = (await page.evaluate(
        `fetch('/dashboard/manifest.webmanifest').then(async (res) => ({ type: res.headers.get('content-type'), body: await res.json() }))`,
      )) as { type: string; body: { icons: { src: string; sizes: string }[] } };
      expect(manifest.type).toContain('application/manifest+json');
      expect(manifest.body).toMatchObject({ display: 'standalone', start_url: '/dashboard', scope: '/dashboard/' });
      for (const icon of manifest.body.icons) {
        const size = await page.evaluate(
          `fetch(${JSON.stringify(icon.src)}).then((r) => r.blob()).then(createImageBitmap).then((b) => b.width + 'x' + b.height)`,
        );
        expect(size).toBe(icon.sizes);
      }
      const cdp = await context.newCDPSession(page);
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
      // Only the test's own browser context stands in the way: Playwright's contexts are incognito ones.
      expect(installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito')).toEqual([]);

      // The worker and the manifest carry the pages' security headers.
      const sw = await fetch(`${s.base}/dashboard/sw.js`);
      expect(sw.headers.get('content-type')).toContain('text/javascript');
      expect(sw.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(sw.headers.get('x-content-type-options')).toBe('nosniff');
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
