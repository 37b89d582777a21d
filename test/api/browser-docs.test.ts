// The API reference at /docs in real headless Chromium: Redoc renders the live document from the page
// itself (nothing fetched from another host, no CSP violation), navigates by tag, expands a schema, shows examples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from '../helpers/screenshots.js';
import { hasChromium, serveWithBrowser, watchPage, type Served } from '../dashboard/browser.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

describe.runIf(hasChromium)('the API reference in a browser', () => {
  it('navigates by tag, expands a schema and shows request and response examples', { timeout: 120_000 }, async () => {
    const context = await s.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const problems = watchPage(page, [s.base, 'blob:', 'data:']);
    await page.goto(`${s.base}/docs`);

    // The side menu lists the document's tags; choosing Orders, then an operation, goes to it.
    const ordersTag = page.locator('li[data-item-id="tag/Orders"] > label').first();
    await ordersTag.waitFor({ timeout: 60_000 });
    for (const tag of ['Store', 'Catalogue', 'Checkout', 'Tracking', 'Webhooks'])
      expect(await page.locator(`li[data-item-id="tag/${tag}"]`).count(), tag).toBe(1);
    await ordersTag.click();
    await page.locator('li[data-item-id="tag/Orders/operation/upsertOrder"] > label').click();
    await page.waitForURL(/#tag\/Orders\/operation\/upsertOrder$/);
    const operation = page.locator('div[id="tag/Orders/operation/upsertOrder"]');
    await operation.waitFor();
    expect(await operation.locator('h2').first().textContent()).toBeTruthy();

    // A nested object of the request body ($ref resolved) opens on a click and shows its own fields.
    const totals = operation.locator('button', { hasText: 'totals' }).first();
    await totals.click();
    await operation.getByText('shipping', { exact: true }).first().waitFor();

    // The right panel: a request sample of the body, and a response sample.
    const samples = await operation.textContent();
    expect(samples).toContain('Request samples');
    expect(samples).toContain('Response samples');
    expect(samples).toContain('"external_id"');

    // The visible part only: the whole reference is tens of thousands of pixels high.
    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('api-reference.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
