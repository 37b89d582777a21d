// The public tracking pages, through inject(): the order's page and the store's page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { PAGE_HEADERS } from '../../web/html.js';
import { createOrder, nextNumber, postForm, SHOPPER, trackingStore, type TrackingStore } from './fixtures.js';

let t: TestApp;
let s: TrackingStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await trackingStore(t);
});
afterAll(() => t.close());

const get = (url: string) => t.request({ method: 'GET', url });

describe('the order’s tracking page lives at tracking.page_url', () => {
  it('is the page_url the order object gives', async () => {
    const id = await createOrder(t, s.secret, nextNumber('G'));
    const order = (await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(s.secret) })).json().order;
    expect(order.tracking.page_url).toBe(`${t.config.publicUrl}/track/${id}`);
    expect((await get(`/track/${id}`)).statusCode).toBe(200);
  });

  it('shows an api order at once: status, progress line, courier, AWB, link, history', async () => {
    const number = nextNumber('G');
    const id = await createOrder(t, s.secret, number);
    await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${id}`,
      headers: bearer(s.secret),
      payload: {
        status: 'out_for_delivery',
        tracking: { number: 'AWB-991', courier: 'Amana', url: 'https://track.example/991' },
        comment: 'With the driver',
      },
    });
    const res = await get(`/track/${id}`);
    expect(res.statusCode).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers[name]).toBe(value);
    expect(res.body).toContain(`Order ${number}`);
    expect(res.body).toMatch(
      /<ol class="progress"[^>]*><li class="done">Pending<\/li><li class="done">Confirmed<\/li><li class="done">Shipped<\/li><li class="current" aria-current="step">Out for delivery<\/li><li class="">Delivered<\/li><\/ol>/,
    );
    for (const text of [
      'Amana',
      'AWB-991',
      'href="https://track.example/991"',
      'With the driver',
      'Mint tea',
      'Large tin',
      '× 3',
      'viewport',
    ]) {
      expect(res.body).toContain(text);
    }
  });

  it('asks an outside platform’s order for the contact first, then shows it; a wrong one is 422 and shows nothing', async () => {
    const id = await createOrder(t, s.connection, nextNumber('G'));
    const form = await get(`/track/${id}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`<form method="post" action="/track/${id}">`);
    expect(form.body).toContain('name="contact"');
    expect(form.body).not.toContain('Mint tea');
    const wrong = await postForm(t, `/track/${id}`, { contact: '1234' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('does not match');
    expect(wrong.body).not.toContain('Mint tea');
    const missing = await postForm(t, `/track/${id}`, { contact: '' });
    expect(missing.statusCode).toBe(422);
    const right = await postForm(t, `/track/${id}`, { contact: SHOPPER.last4 });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('Mint tea');
  });

  it('answers 404 for an unknown, malformed or archived order id', async () => {
    expect((await get('/track/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get('/track/not-an-id')).statusCode).toBe(404);
    const id = await createOrder(t, s.secret, nextNumber('G'));
    await t.request({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: bearer(s.secret) });
    const res = await get(`/track/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe(PAGE_HEADERS['content-type']);
  });

  it('escapes every text it shows', async () => {
    const number = nextNumber('G');
    const id = await createOrder(t, s.secret, number, {
      items: [{ name: 'Tea &lt;script&gt;alert(1)&lt;/script&gt;', variant: '"><b>x', quantity: 1, unit_price: 1 }],
    });
    await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${id}`,
      headers: bearer(s.secret),
      payload: { tracking: { url: 'https://track.example/?a=1&b="x"' } },
    });
    const res = await get(`/track/${id}`);
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('Tea &lt;script&gt;alert(1)&lt;/script&gt;');
    // Input cleaning decoded the entities (the stored name holds a real <script>) and stripped the <b> tag.
    expect(res.body).toContain('&quot;&gt;x');
    expect(res.body).toContain('href="https://track.example/?a=1&amp;b=&quot;x&quot;"');
  });

  it('shows a cancelled order without a progress line', async () => {
    const id = await createOrder(t, s.secret, nextNumber('G'), { status: 'cancelled' });
    const res = await get(`/track/${id}`);
    expect(res.body).toContain('This order was cancelled.');
    expect(res.body).not.toContain('class="progress"');
  });
});

describe('the store’s tracking page leads from an order number to the order', () => {
  it('is the store’s tracking_url, a form for the number and the contact', async () => {
    const me = (await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) })).json();
    expect(me.store.tracking_url).toBe(`${t.config.publicUrl}/s/${s.store.slug}/track`);
    const res = await get(`/s/${s.store.slug}/track?order=A%3Cb%3E`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<form method="post" action="/s/${s.store.slug}/track">`);
    expect(res.body).toContain('value="A&lt;b&gt;"');
    expect(res.body).toContain(s.store.name);
    expect((await get('/s/no-such-store-anywhere/track')).statusCode).toBe(404);
  });

  it('shows the order for the right number and contact, with a link to its own page', async () => {
    const number = nextNumber('G');
    const id = await createOrder(t, s.connection, number);
    const res = await postForm(t, `/s/${s.store.slug}/track`, { order: `#${number}`, contact: SHOPPER.email });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Mint tea');
    expect(res.body).toContain(`href="${t.config.publicUrl}/track/${id}"`);
  });

  it('answers the API’s rules as pages: unknown 404, missing or wrong contact 422, and the form again', async () => {
    const number = nextNumber('G');
    await createOrder(t, s.connection, number);
    const unknown = await postForm(t, `/s/${s.store.slug}/track`, { order: 'NOPE-1', contact: '1234' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No order with this number');
    const missing = await postForm(t, `/s/${s.store.slug}/track`, { order: number });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain(`value="${number}"`);
    const wrong = await postForm(t, `/s/${s.store.slug}/track`, { order: number, contact: '0101' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).not.toContain('Mint tea');
  });

  it('never carries the contact in a URL: the forms post it', async () => {
    const page = (await get(`/s/${s.store.slug}/track`)).body;
    expect(page).toMatch(/<form method="post"/);
    expect(page).not.toMatch(/method="get"/i);
  });
});
