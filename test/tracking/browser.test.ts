// The order's tracking page in real headless Chromium, served on a loopback port like production.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { screenshotPath } from '../helpers/screenshots.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createOrder, nextNumber, SHOPPER, trackingStore } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = screenshotPath('tracking.png');

/** A free loopback port: PUBLIC_URL must name it before the app is built. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

let t: TestApp;
let browser: Browser;
let base: string;
beforeAll(async () => {
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

describe.runIf(existsSync(CHROMIUM))('the order’s tracking page in a browser', () => {
  it('asks for the contact, then shows the status and the progress line on a phone-sized screen', { timeout: 60_000 }, async () => {
    const s = await trackingStore(t, 'Atlas Tea House');
    const number = nextNumber('B');
    // No item image: the browser must not try to reach any host but ours.
    const items = [{ name: 'Mint tea', variant: 'Large tin', quantity: 3, unit_price: 17.99 }];
    const id = await createOrder(t, s.connection, number, {
      items,
      payment: { is_cod: true },
      totals: { total: 59.97, shipping: 7, cod_fee: 5 },
    });
    const patch = {
      status: 'shipped',
      tracking: { number: 'AWB-5521-MA', courier: 'Amana Express', url: 'https://track.example/AWB-5521-MA' },
      comment: 'Handed to the courier in Casablanca',
    };
    await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(s.connection), payload: patch });
    const pageUrl = (await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(s.secret) })).json().order.tracking
      .page_url;
    expect(pageUrl).toBe(`${base}/track/${id}`);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
    const page = await context.newPage();
    const errors: string[] = [];
    // The wrong contact's 422 is expected; anything else (a CSP violation, a failed load) is not.
    page.on('console', (m) => void (m.type() === 'error' && !/status of 422/.test(m.text()) && errors.push(m.text())));
    page.on('request', (r) => void (r.url().startsWith(base) || errors.push(`request outside the app: ${r.url()}`)));
    const first = await page.goto(pageUrl);
    expect(first!.status()).toBe(200);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Track your order');
    expect(await page.locator('body').textContent()).not.toContain('Mint tea');

    await page.fill('#contact', '0000');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(refused.status()).toBe(422);
    await page.waitForSelector('.errors');
    expect(await page.locator('.errors').textContent()).toContain('does not match');

    await page.fill('#contact', SHOPPER.last4);
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(response.status()).toBe(200);
    await page.waitForSelector('ol.progress');
    expect(page.url()).toBe(pageUrl);
    expect(await page.locator('h1').textContent()).toBe(`Order ${number}`);
    expect(await page.locator('p.status strong').textContent()).toBe('Shipped');
    expect(await page.locator('ol.progress li').allTextContents()).toEqual([
      'Pending',
      'Confirmed',
      'Shipped',
      'Out for delivery',
      'Delivered',
    ]);
    expect(await page.locator('ol.progress li.current').textContent()).toBe('Shipped');
    expect(await page.locator('ol.progress li.done').count()).toBe(2);
    const text = (await page.locator('body').textContent())!;
    for (const fact of ['Amana Express', 'AWB-5521-MA', 'Handed to the courier in Casablanca', 'Mint tea']) expect(text).toContain(fact);
    expect(await page.locator('a[href="https://track.example/AWB-5521-MA"]').count()).toBe(1);
    // Readable on a phone: nothing wider than the screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
