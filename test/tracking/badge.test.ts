// The free plan's badge on the public tracking pages ("Tracking by Store Commerce", linking to PUBLIC_URL);
// none on a paid store's pages (spec Limits: the tracking page badge differs by plan).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';
import { createOrder, nextNumber, postForm, SHOPPER } from './fixtures.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const BADGE = '<a href="http://127.0.0.1:3999" rel="noopener" data-badge>Tracking by Store Commerce</a>';

/** Every public tracking page of one order's store: the store's form, its answer, the order's page and its answer. */
async function pagesOf(plan: 'free' | 'paid') {
  const s = await createTestStore(t.orm, { plan });
  const number = nextNumber('B');
  const id = await createOrder(t, s.secret, number);
  return [
    await t.request({ method: 'GET', url: `/s/${s.store.slug}/track` }),
    await postForm(t, `/s/${s.store.slug}/track`, { order: number, contact: SHOPPER.last4 }),
    await postForm(t, `/s/${s.store.slug}/track`, { order: number, contact: '0000' }),
    await t.request({ method: 'GET', url: `/track/${id}` }),
    await postForm(t, `/track/${id}`, { contact: SHOPPER.last4 }),
  ];
}

describe('the tracking page badge', () => {
  it('a free store’s tracking pages carry the badge, linking to PUBLIC_URL', async () => {
    const pages = await pagesOf('free');
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 422, 200, 200]);
    expect(pages[1]!.body).toContain('Mint tea');
    for (const page of pages) expect(page.body).toContain(BADGE);
  });

  it('a paid store’s pages carry none', async () => {
    const pages = await pagesOf('paid');
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 422, 200, 200]);
    for (const page of pages) expect(page.body).not.toContain('Tracking by Store Commerce');
  });

  it('a page that names no store (an unknown order) carries none', async () => {
    const page = await t.request({ method: 'GET', url: `/track/${crypto.randomUUID()}` });
    expect(page.statusCode).toBe(404);
    expect(page.body).not.toContain('Tracking by Store Commerce');
  });
});
