// The cart page in real headless Chromium (Debian's chromium, playwright-core), served on a loopback port like production.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { screenshotPath } from '../helpers/screenshots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../config/free-port.js';
import { insertProducts } from '../../services/catalog/create.js';
import { DEMO_PRODUCTS } from '../../services/catalog/demo-products.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';
import { SHOPPER } from '../catalog/fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const shot = (name: string) => screenshotPath(name);

let t: TestApp;
let browser: Browser;
let base: string;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ PUBLIC_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A phone-sized page that records console errors (a CSP violation, a failed load) and any request leaving the app. */
async function phonePage(errors: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
  const page = await context.newPage();
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on(
    'request',
    (r) => void (r.url().startsWith(base) || r.url().startsWith('data:') || errors.push(`request outside the app: ${r.url()}`)),
  );
  return page;
}

describe.runIf(existsSync(CHROMIUM))('the cart page in a browser', () => {
  it(
    'opens the cart of POST /checkout/sessions, takes the delivery form and shows the confirmation with the order number',
    { timeout: 90_000 },
    async () => {
      const s = await createTestStore(t.orm, { name: 'Atlas Tea House', currency: 'MAD', standardDeliveryFee: '25' });
      const [tea, pot] = await insertProducts(t.orm.em.fork(), s.store.id, DEMO_PRODUCTS);
      const session = await t.request({
        method: 'POST',
        url: '/api/v1/checkout/sessions',
        headers: bearer(s.secret),
        payload: {
          items: [
            { product_id: tea!.id, quantity: 2 },
            { product_id: pot!.id, quantity: 1, variant: { Colour: 'Blue' } },
          ],
          return_url: 'https://shop.example/thanks',
        },
      });
      expect(session.statusCode, session.body).toBe(201);
      const { url } = session.json();
      expect(url.startsWith(`${base}/s/${s.store.slug}/cart/`)).toBe(true);

      const errors: string[] = [];
      const page = await phonePage(errors);
      expect((await page.goto(url))!.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('Your order');
      // 2 × 6.50 + 34.00 = 47.00; delivery: the tea's null fee is the store's 25, above the teapot's 8.
      expect(await page.locator('#total').textContent()).toBe('72.00 MAD');

      await page.fill('#name', SHOPPER.name);
      await page.fill('#phone', SHOPPER.phone);
      await page.fill('#address', SHOPPER.address);
      await page.fill('#city', SHOPPER.city);
      await page.fill('#country', SHOPPER.country);
      await page.fill('#note', 'Please call before coming.');
      await page.screenshot({ path: shot('cart.png'), fullPage: true });

      // A bad phone: the form comes back from the server with a message and what was typed.
      await page.fill('#phone', 'abc');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button[type=submit]'),
      ]);
      expect(refused.status()).toBe(400);
      await page.waitForSelector('#phone-error');
      expect(await page.locator('#phone-error').textContent()).toContain('6 to 15 digits');
      expect(await page.inputValue('#address')).toBe(SHOPPER.address);
      expect(await page.inputValue('#note')).toBe('Please call before coming.');
      await page.fill('#phone', SHOPPER.phone);
      await Promise.all([page.waitForURL(/\/confirmation$/), page.click('button[type=submit]')]);
      const number = (await page.locator('#order-number').textContent())!;
      expect(number).toMatch(/^N-\d+$/);
      const trackHref = await page.locator('a', { hasText: 'Track your order' }).getAttribute('href');
      expect(trackHref).toMatch(new RegExp(`^${base}/track/[0-9a-f-]{36}$`));
      expect(await page.locator('a', { hasText: 'Back to the shop' }).getAttribute('href')).toBe('https://shop.example/thanks');
      await page.screenshot({ path: shot('cart-confirmation.png'), fullPage: true });

      const orders = (await t.request({ method: 'GET', url: '/api/v1/orders', headers: bearer(s.secret) })).json().data;
      expect(orders).toHaveLength(1);
      expect(orders[0]).toMatchObject({
        order_number: number,
        source: 'native',
        totals: { total: 72, shipping: 25 },
        note: 'Please call before coming.',
      });

      // Back and submit again: the same order's confirmation, never a second order.
      expect((await page.goto(url))!.status()).toBe(409);
      expect(await page.locator('form').count()).toBe(0);
      expect(errors.filter((e) => !/status of (400|409)/.test(e))).toEqual([]);
    },
  );

  it('a product page of the storefront renders on a phone', { timeout: 60_000 }, async () => {
    const s = await createTestStore(t.orm, { name: 'Atlas Tea Shop', currency: 'MAD' });
    const [, pot] = await insertProducts(t.orm.em.fork(), s.store.id, DEMO_PRODUCTS);
    const product = (await t.request({ method: 'GET', url: `/api/v1/products/${pot!.id}`, headers: bearer(s.secret) })).json().product;
    const errors: string[] = [];
    const page = await phonePage(errors);
    expect((await page.goto(product.url))!.status()).toBe(200);
    expect(await page.locator('#product-name').textContent()).toBe('Ceramic teapot');
    expect(
      await page
        .locator('img')
        .first()
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
    ).toBe(true);
    await page.screenshot({ path: shot('product.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
