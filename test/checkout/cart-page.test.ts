import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_HEADERS } from '../../web/html.js';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, api, pathOf, postCart, SHOPPER, sql } from '../catalog/fixtures.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { currency: 'MAD', standardDeliveryFee: '30' });
});
afterAll(() => t.close());

async function cartFor(items: unknown[], store = s, extra: Record<string, unknown> = {}): Promise<{ url: string; token: string }> {
  const res = await api(t, store.secret).checkout(items, extra);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
const view = (url: string) => t.request({ method: 'GET', url: pathOf(url) });

describe('the cart page shows the lines with the service’s prices, the delivery fee and totals', () => {
  it('variant prices, the single highest delivery fee (null → the store standard fee) and an exact total', async () => {
    const tea = await addProduct(t, s.store.id, { name: 'Tea', price: '0.10', delivery_fee: '12.5' });
    const shirt = await addProduct(t, s.store.id, {
      name: 'Shirt',
      price: 20,
      delivery_fee: null,
      variants: [{ options: { Size: 'M' }, price: '21.35' }],
    });
    const cart = await cartFor([
      { product_id: tea.id, quantity: 3, price: 99 },
      { product_id: shirt.id, quantity: 2, variant: { Size: 'M' } },
    ]);
    const res = await view(cart.url);
    expect(res.statusCode).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers[name]).toBe(value);
    expect(res.body).toContain('3 × 0.10 MAD');
    expect(res.body).toContain('0.30 MAD');
    expect(res.body).toContain('Size: M');
    expect(res.body).toContain('2 × 21.35 MAD');
    // Delivery: the highest of 12.5 (tea) and 30 (shirt: null → standard 30).
    expect(res.body).toMatch(/Delivery<\/td><td>30\.00 MAD/);
    expect(res.body).toContain('<th id="total">73.00 MAD</th>');
    expect(res.body).not.toContain('99.00');
  });

  it('free shipping when every product says 0; the form asks for name, phone, address, city, country and a note, cash on delivery', async () => {
    const free = await addProduct(t, s.store.id, { name: 'Free ship', price: 5, delivery_fee: 0 });
    const res = await view((await cartFor([{ product_id: free.id, quantity: 1 }])).url);
    expect(res.body).toMatch(/Delivery<\/td><td>Free/);
    for (const field of ['name', 'phone', 'address', 'city', 'country', 'note']) expect(res.body).toContain(`name="${field}"`);
    expect(res.body).toContain('Cash on delivery');
    expect(res.body).toContain('<form method="post"');
    expect(res.body).toContain('width=device-width');
  });

  it('escapes product names and shows a line that can no longer be ordered, without the form', async () => {
    const odd = await addProduct(t, s.store.id, { name: 'Mug "<b>big</b>" & co', price: 3, stock: 1 });
    const cart = await cartFor([{ product_id: odd.id, quantity: 1 }]);
    await sql(t, 'update products set stock = 0 where id = ?', [odd.id]);
    const res = await view(cart.url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('sold out');
    expect(res.body).not.toContain('<form');
    expect(res.body).not.toContain('<b>big</b>');
  });
});

describe('form input is validated with clear messages on the page', () => {
  it('missing and bad fields answer 400 with a message per field, the values kept and escaped', async () => {
    const p = await addProduct(t, s.store.id, { price: 4 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    const res = await postCart(t, cart.url, {
      name: '"><script>alert(1)</script>',
      phone: 'call me',
      address: '',
      city: 'Rabat',
      country: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Enter a phone number of 6 to 15 digits');
    expect(res.body).toContain('Enter the delivery address');
    expect(res.body).toContain('Enter the country.');
    expect(res.body).not.toContain('Enter your name');
    expect(res.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(res.body).toContain('value="call me"');
    expect(res.body).toContain('value="Rabat"');
    expect(res.body).not.toContain('<script>alert(1)');
    expect((await sql(t, 'select 1 from orders where store_id = ?', [s.store.id])).length).toBe(0);
  });

  it('an over-long note is refused; a body over 64 KB is a 413 page; JSON bodies are read too', async () => {
    const p = await addProduct(t, s.store.id, { price: 4 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    const long = await postCart(t, cart.url, { ...SHOPPER, note: 'x'.repeat(2100) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('Use at most 2000 characters.');
    const huge = await postCart(t, cart.url, { ...SHOPPER, note: 'x'.repeat(70_000) });
    expect(huge.statusCode).toBe(413);
    expect(huge.headers['content-type']).toMatch(/^text\/html/);
    const json = await t.request({ method: 'POST', url: pathOf(cart.url), payload: { name: '' } });
    expect(json.statusCode).toBe(400);
    expect(json.body).toContain('Enter your name.');
  });
});

describe('an unknown, expired or used link shows a clear page and cannot place an order', () => {
  it('an unknown token, a malformed one, or another store’s slug is a 404 page', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    const other = await createTestStore(t.orm);
    for (const url of [
      `/s/${s.store.slug}/cart/${'A'.repeat(43)}`,
      `/s/${s.store.slug}/cart/short`,
      `/s/${other.store.slug}/cart/${cart.token}`,
    ]) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('<form');
    }
    expect((await postCart(t, `http://x/s/${other.store.slug}/cart/${cart.token}`, SHOPPER)).statusCode).toBe(404);
  });

  it('past expires_at the link is a 410 page even while the session row still says open; POST places nothing', async () => {
    const p = await addProduct(t, s.store.id, { stock: 5 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }], s, { return_url: 'https://shop.example/back' });
    await sql(t, `update checkout_sessions set expires_at = now() - interval '1 second' where token_hash = ?`, [
      hashCheckoutToken(cart.token),
    ]);
    const res = await view(cart.url);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('expired');
    expect(res.body).toContain('https://shop.example/back');
    expect(res.body).not.toContain('<form');
    const post = await postCart(t, cart.url, SHOPPER);
    expect(post.statusCode).toBe(410);
    const [row] = await sql<{ status: string; order_id: string | null }>(
      t,
      'select status, order_id from checkout_sessions where token_hash = ?',
      [hashCheckoutToken(cart.token)],
    );
    expect(row).toEqual({ status: 'open', order_id: null });
    expect((await sql<{ stock: number }>(t, 'select stock from products where id = ?', [p.id]))[0]!.stock).toBe(5);
  });

  it('a used link is a 409 page with the order number and its tracking link, never the form', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(303);
    const res = await view(cart.url);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('already been placed');
    expect(res.body).toMatch(/order N-\d+/);
    expect(res.body).toContain('/track/');
    expect(res.body).not.toContain('<form');
  });
});
