// The real app on a loopback port (PUBLIC_URL names it) and a headless Chromium, for the browser tests.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { screenshotPath } from '../helpers/screenshots.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** A free loopback port: PUBLIC_URL must name it before the app is built. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export interface Served {
  t: TestApp;
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

/** Starts the app listening on 127.0.0.1 and launches Chromium. */
export async function serveWithBrowser(env: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PUBLIC_URL: base, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
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
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** Collects what must never happen on our pages: console errors (CSP violations among them), error responses, and requests to other hosts. */
export function watchPage(page: Page, allowedOrigins: string[]): string[] {
  const problems: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)));
  page.on('response', (r) => void (r.status() >= 400 && problems.push(`${r.status()} from ${r.request().method()} ${r.url()}`)));
  page.on(
    'request',
    (r) => void (allowedOrigins.some((o) => r.url().startsWith(o)) || problems.push(`request outside the app: ${r.url()}`)),
  );
  return problems;
}

/** Keeps a screenshot of the page (docs/screenshots/<name>.png with UPDATE_SCREENSHOTS=1). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`${name}.png`), fullPage: true });
}
