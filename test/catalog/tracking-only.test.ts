// A tracking_only store does orders and tracking only: its catalogue (products API, storefront, cart,
// checkout) answers exactly as an unpublished store's does; orders, tracking and a connected shop's
// external products (which its orders refer to) work as in full mode. Products are kept, not deleted.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, api, pathOf, postCart, SHOPPER, sql } from './fixtures.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

/** A full store with a product and an open cart; then `close` makes it unpublished or tracking_only. */
async function storeThen(close: 'unpublished' | 'tracking_only') {
  const s = await createTestStore(t.orm);
  const product = await addProduct(t, s.store.id, { category: 'Tea' });
  const cart = await api(t, s.secret).checkout([{ product_id: product.id, quantity: 1 }]);
  expect(cart.statusCode, cart.body).toBe(201);
  const change = close === 'unpublished' ? 'published = false' : `mode = 'tracking_only'`;
  await sql(t, `update stores set ${change} where id = ?`, [s.store.id]);
  return { s, product, cartUrl: cart.json().url as string };
}

/** What a shopper or a client meets of the catalogue: status and error code (API) or status (pages). */
async function catalogueAnswers({ s, product, cartUrl }: { s: TestStore; product: { id: string }; cartUrl: string }) {
  const short = (res: LightMyRequestResponse) =>
    res.headers['content-type']?.toString().includes('json') ? `${res.statusCode} ${res.json().error?.code ?? ''}` : `${res.statusCode}`;
  const calls = {
    'GET /products': api(t, s.publishable, { origin: s.origin }).get('/products'),
    'GET /products/{id}': api(t, s.secret).get(`/products/${product.id}`),
    'GET /categories': api(t, s.secret).get('/categories'),
    'POST /checkout/sessions': api(t, s.secret).checkout([{ product_id: product.id, quantity: 1 }]),
    storefront: t.request({ method: 'GET', url: `/s/${s.store.slug}` }),
    'product page': t.request({ method: 'GET', url: `/s/${s.store.slug}/products/${product.id}` }),
    'cart page': t.request({ method: 'GET', url: pathOf(cartUrl) }),
  };
  const answers: Record<string, string> = {};
  for (const [name, call] of Object.entries(calls)) answers[name] = short(await call);
  answers['place the order'] = short(await postCart(t, cartUrl, SHOPPER));
  return answers;
}

describe('a tracking_only store’s catalogue answers as an unpublished store’s', () => {
  it('products API, storefront, product page, checkout, cart page and placing the order: the same answers', async () => {
    const tracking = await catalogueAnswers(await storeThen('tracking_only'));
    const unpublished = await catalogueAnswers(await storeThen('unpublished'));
    expect(tracking).toEqual(unpublished);
    expect(tracking).toMatchObject({
      'GET /products': '404 not_found',
      'GET /products/{id}': '404 not_found',
      'GET /categories': '404 not_found',
      'POST /checkout/sessions': '422 unprocessable',
      storefront: '404',
      'product page': '404',
    });
  });

  it('no order is placed from a cart opened before the switch, and the products are kept', async () => {
    const closed = await storeThen('tracking_only');
    await postCart(t, closed.cartUrl, SHOPPER);
    expect(await sql(t, `select id from orders where store_id = ?`, [closed.s.store.id])).toEqual([]);
    expect(await sql(t, `select id from products where id = ?`, [closed.product.id])).toHaveLength(1);
  });

  it('switched back to full mode, the catalogue answers again', async () => {
    const { s } = await storeThen('tracking_only');
    await sql(t, `update stores set mode = 'full' where id = ?`, [s.store.id]);
    expect((await api(t, s.secret).get('/products')).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `/s/${s.store.slug}` })).statusCode).toBe(200);
  });
});

describe('a tracking_only store does orders and tracking', () => {
  it('orders are taken and tracked; a connected shop still sends its external products', async () => {
    const s = await createTestStore(t.orm, { mode: 'tracking_only' });
    const order = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 'to-1', number: 'TO-1', customer: { name: 'Ada', phone: '+212 612 345 678' }, totals: { total: 10 } },
    });
    expect(order.statusCode, order.body).toBe(201);
    const tracked = await t.request({ method: 'GET', url: '/api/v1/tracking?order=TO-1&contact=5678', headers: bearer(s.secret) });
    expect(tracked.statusCode, tracked.body).toBe(200);
    expect((await t.request({ method: 'GET', url: `/s/${s.store.slug}/track` })).statusCode).toBe(200);
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const sent = await api(t, conn.key).post('/external-products/batch', {
      products: [{ external_id: 'ext-1', name: 'Mint tea', price: 12.5 }],
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().results).toEqual([{ external_id: 'ext-1', ok: true }]);
  });
});
