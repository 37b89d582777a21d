// Running a store from the dashboard in real headless Chromium: the store's time zone, the Products tab
// (empty state, field errors with typed values kept, add, CSV import, edit, archive), a webhook's test
// event, the confirmation before deleting, and the password change and the operator's reset link.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOwnerByEmail } from '../../services/accounts/owners.js';
import { issuePasswordReset } from '../../services/accounts/passwords.js';
import { startReceiver } from '../helpers/receiver.js';
import { hasChromium, screenshot, serveWithBrowser, watchPage, type Served } from './browser.js';
import { newEmail, PASSWORD } from './client.js';

let s: Served;
beforeAll(async () => {
  if (hasChromium) s = await serveWithBrowser();
});
afterAll(async () => s?.close());

describe.runIf(hasChromium)('running a store from the dashboard in a browser', () => {
  it(
    'sets the time zone, manages products (errors, add, CSV import, edit, archive), tests a webhook, confirms a delete, changes and resets the password',
    { timeout: 180_000 },
    async () => {
      const receiver = await startReceiver();
      const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      const problems = watchPage(page, [s.base]);
      // Field errors and the 429 of the meter are answers we expect here, not problems.
      const expected = (p: string) =>
        /^400 from POST |^console: Failed to load resource: the server responded with a status of 400/.test(p);

      const email = newEmail('owner-browser');
      await page.goto(`${s.base}/dashboard/sign-up`);
      await page.fill('#su-email', email);
      await page.fill('#su-password', PASSWORD);
      await page.click('button:has-text("Create my account")');
      await page.fill('#new-name', 'Atlas Tea House');
      await page.fill('#new-currency', 'MAD');
      await page.click('button:has-text("Create the store")');
      await page.waitForSelector('h1:has-text("Overview")');
      const storeId = /\/dashboard\/stores\/([0-9a-f-]{36})/.exec(page.url())![1]!;

      // The store's time zone: a wrong name is refused beside its field, the typed value kept.
      await page.click('nav.dash-tabs >> text=Settings');
      await page.fill('#s-tz', 'Africa/Casablance');
      await page.click('button:has-text("Save the settings")');
      expect(await page.locator('#e-time_zone').textContent()).toContain('IANA name');
      expect(await page.inputValue('#s-tz')).toBe('Africa/Casablance');
      await page.fill('#s-tz', 'Africa/Casablanca');
      await page.click('button:has-text("Save the settings")');
      await page.waitForSelector('text=Saved.');
      await screenshot(page, 'dashboard-settings-time-zone');

      // Products: the empty state leads to the form.
      await page.click('nav.dash-tabs >> text=Products');
      expect(await page.locator('.dash-empty').textContent()).toContain('No products yet.');
      await screenshot(page, 'dashboard-products-empty');
      await page.click('.dash-empty >> text=Add your first product');
      await page.fill('#p-name', 'Mint tea');
      await page.fill('#p-price', '19,99');
      await page.fill('#p-stock', 'forty');
      await page.fill('#p-category', 'Tea');
      await page.click('button:has-text("Add the product")');
      await page.waitForSelector('#e-price');
      expect(await page.locator('#e-price').textContent()).toContain('must be an amount such as 19.99');
      expect(await page.locator('#e-stock').textContent()).toContain('whole number');
      expect(await page.inputValue('#p-name')).toBe('Mint tea');
      expect(await page.inputValue('#p-stock')).toBe('forty');
      await screenshot(page, 'dashboard-product-errors');
      await page.fill('#p-price', '19.99');
      await page.fill('#p-stock', '40');
      await page.click('button:has-text("Add the product")');
      await page.waitForSelector('text=Product added.');

      // A CSV import through the file input: good rows added, a bad one listed by its line.
      const csv = join(tmpdir(), `products-${process.pid}-${Date.now()}.csv`);
      await writeFile(csv, 'name,price,stock,category\n"Saffron, 1 g",99,12,Spices\nRose water,,5,Flowers\nAmlou,45.50,,Spreads\n');
      await page.setInputFiles('#import-file', csv);
      await page.click('button:has-text("Import")');
      await page.waitForSelector('#import-result');
      expect(await page.locator('#import-result').textContent()).toContain('Imported 2 of 3 product(s).');
      expect(await page.locator('#import-failures').textContent()).toContain('Rose water');
      const table = await page.locator('#products').textContent();
      for (const fact of ['Mint tea', 'Saffron, 1 g', 'Amlou', 'MAD\u00a019.99', 'MAD\u00a045.50', 'unlimited'])
        expect(table).toContain(fact);
      await screenshot(page, 'dashboard-products');

      // Edit, then archive: the storefront's catalogue follows.
      await page.click('#products >> text=Mint tea');
      await page.fill('#p-price', '21.50');
      await page.click('button:has-text("Save the product")');
      await page.waitForSelector('text=Saved.');
      await page.click('nav.dash-tabs >> text=Products');
      await page.locator('tr:has-text("Amlou") >> button:has-text("Archive")').click();
      await page.waitForSelector('text=Archived: it is gone from the storefront');
      expect(await page.locator('tr:has-text("Amlou")').textContent()).toContain('Archived');

      // A webhook endpoint, its test event, and the confirmation before deleting it.
      await page.click('nav.dash-tabs >> text=Webhooks');
      expect(await page.locator('.dash-empty').textContent()).toContain('No webhook endpoints yet.');
      await page.fill('#hook-url', receiver.url('/hooks/atlas'));
      await page.click('button:has-text("Add the endpoint")');
      await page.goto(`${s.base}/dashboard/stores/${storeId}/webhooks`);
      await page.click('button:has-text("Send a test event")');
      await page.waitForSelector('#test-result');
      expect(await page.locator('#test-result').textContent()).toMatch(/webhook\.test\): delivered, answered 200/);
      expect(JSON.parse(receiver.received[0]!.body).type).toBe('webhook.test');
      await screenshot(page, 'dashboard-webhook-test');
      await page.click('button:has-text("Delete this endpoint")');
      await page.waitForSelector('h1:has-text("Delete this endpoint?")');
      expect(await page.locator('#confirm-item').textContent()).toBe(receiver.url('/hooks/atlas'));
      await screenshot(page, 'dashboard-confirm-delete');
      await page.click('button:has-text("Delete the endpoint")');
      await page.waitForSelector('text=The endpoint is deleted');

      // The password: changed from the account page (wrong current password first).
      await page.click('nav.dash-bar >> text=' + email);
      await page.fill('#pw-current', 'not my password');
      await page.fill('#pw-new', 'a new long passphrase');
      await page.click('button:has-text("Change the password")');
      expect(await page.locator('#e-current_password').textContent()).toBe('The current password is wrong.');
      await page.fill('#pw-current', PASSWORD);
      await page.fill('#pw-new', 'a new long passphrase');
      await page.click('button:has-text("Change the password")');
      await page.waitForSelector('text=Your password is changed.');
      await screenshot(page, 'dashboard-account');

      // Forgotten: the operator's one-time link (admin owner reset-password) sets another, and signs in.
      const owner = await findOwnerByEmail(s.t.orm.em.fork(), email);
      const { token } = await issuePasswordReset(s.t.orm.em.fork(), owner!.id);
      const fresh = await s.browser.newContext({ viewport: { width: 900, height: 700 } });
      const other = await fresh.newPage();
      const otherProblems = watchPage(other, [s.base]);
      await other.goto(`${s.base}/dashboard/reset-password/${token}`);
      expect(await other.locator('h1').textContent()).toBe('Choose a new password');
      await screenshot(other, 'dashboard-reset-password');
      await other.fill('#rp-new', 'the third passphrase');
      await other.click('button:has-text("Set the password")');
      await other.waitForSelector('text=Your new password is set');
      // The link is spent, and the first browser was signed out.
      const again = await other.goto(`${s.base}/dashboard/reset-password/${token}`);
      expect(again!.status()).toBe(410);
      await page.goto(`${s.base}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');

      expect(problems.filter((p) => !expected(p))).toEqual([]);
      expect(otherProblems.filter((p) => !/^410 from GET |status of 410/.test(p))).toEqual([]);
      await fresh.close();
      await context.close();
      await receiver.close();
    },
  );
});
