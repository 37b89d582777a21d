// The browser entry in real headless Chromium: sdk/dist served as ES modules on a loopback page, calling the live
// service cross-origin with a publishable key allowed on that page's origin (CORS preflight included).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { addProducts } from '../catalog/fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../', import.meta.url));

let t: TestApp & { baseUrl: string };
let browser: Browser;
let page: Server;
let pageOrigin: string;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  // The published files: sdk/dist as `npm run sdk:build` makes them.
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}sdk`], { stdio: 'inherit' });
  t = await createListeningTestApp();
  page = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(
        `<!doctype html><script type="importmap">{"imports":{"openapi-fetch":"/openapi-fetch.mjs"}}</script><script type="module">import * as sdk from "/sdk/browser.js"; window.sdk = sdk;</script>`,
      );
    }
    const file =
      path === '/openapi-fetch.mjs'
        ? `${root}node_modules/openapi-fetch/dist/index.mjs`
        : /^\/sdk\/\w+\.js$/.test(path)
          ? `${root}sdk/dist/${path.slice(5)}`
          : null;
    if (!file || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
  });
  await new Promise<void>((ready) => page.listen(0, '127.0.0.1', ready));
  pageOrigin = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((done) => (page ? page.close(done) : done(undefined)));
  await t?.close();
});

describe('@store-commerce/sdk/browser in a real browser', () => {
  it.skipIf(!existsSync(CHROMIUM))('lists products by iteration, opens a checkout session, and throws the typed error', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const { key } = await addKey(t.orm, s.store.id, { kind: 'publishable', origins: [pageOrigin] });
    const [mug] = await addProducts(t, s.store.id, [
      { name: 'Mug', price: 7 },
      { name: 'Bowl', price: 9 },
      { name: 'Plate', price: 11 },
    ]);
    const tab = await (await browser.newContext()).newPage();
    const outside: string[] = [];
    tab.on('request', (r) => void (!r.url().startsWith(pageOrigin) && !r.url().startsWith(t.baseUrl) && outside.push(r.url())));
    await tab.goto(`${pageOrigin}/`);
    await tab.waitForFunction(() => (globalThis as any).sdk !== undefined);
    const result = await tab.evaluate(
      async ({ baseUrl, publishableKey, productId }) => {
        const sdk = (globalThis as any).sdk;
        const client = sdk.createBrowserClient({ baseUrl, publishableKey });
        const names: string[] = [];
        for await (const product of client.products.list({ limit: 2 })) names.push(product.name);
        const session = await client.checkout.createSession({ items: [{ product_id: productId, quantity: 2 }] });
        const error = await client.products.get(crypto.randomUUID()).catch((e: any) => e);
        return {
          names,
          url: session.url,
          error: { typed: error instanceof sdk.StoreCommerceError, status: error.status, code: error.code, request_id: error.request_id },
        };
      },
      { baseUrl: `${t.baseUrl}/api/v1`, publishableKey: key, productId: mug!.id },
    );
    expect(result.names).toEqual(['Plate', 'Bowl', 'Mug']);
    expect(result.url.startsWith(t.baseUrl)).toBe(true);
    expect(result.error).toEqual({ typed: true, status: 404, code: 'not_found', request_id: expect.stringMatching(/^req_/) });
    expect(outside).toEqual([]);
  });
});
