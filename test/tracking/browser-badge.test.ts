// The free plan's badge on the store's tracking page in real headless Chromium: visible, and a link to the
// service (PUBLIC_URL); a paid store's page has none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, screenshot, serveWithBrowser, watchPage, type Served } from '../dashboard/browser.js';
import { createTestStore } from '../helpers/store.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

describe.runIf(hasChromium)('the tracking page badge in a browser', () => {
  it(
    'a free store’s tracking page shows “Tracking by Store Commerce” linking to PUBLIC_URL; a paid store’s shows none',
    { timeout: 60_000 },
    async () => {
      const free = await createTestStore(s.t.orm, { name: 'Badge Free Tea' });
      const paid = await createTestStore(s.t.orm, { name: 'Badge Paid Tea', plan: 'paid' });
      const context = await s.browser.newContext({ viewport: { width: 390, height: 760 } });
      const page = await context.newPage();
      const problems = watchPage(page, [s.base]);

      await page.goto(`${s.base}/s/${free.store.slug}/track`);
      const badge = page.locator('footer.badge a');
      expect(await badge.isVisible()).toBe(true);
      expect(await badge.textContent()).toBe('Tracking by Store Commerce');
      expect(await badge.getAttribute('href')).toBe(s.base);
      await screenshot(page, 'tracking-badge');

      await page.goto(`${s.base}/s/${paid.store.slug}/track`);
      expect(await page.locator('footer.badge').count()).toBe(0);
      expect(await page.textContent('body')).not.toContain('Tracking by Store Commerce');
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
