import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, addProducts, api, errorOf, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid', currency: 'MAD', standardDeliveryFee: '25' });
});
afterAll(() => t.close());

describe('the product object carries every field of the spec', () => {
  it('GET /products/{id} answers {product} with exact prices, variants, images, categories and its storefront url', async () => {
    const row = await addProduct(t, s.store.id, {
      name: 'Tea pot',
      description: 'Blue\nceramic',
      price: '19.99',
      compare_at_price: 24.5,
      delivery_fee: '7.25',
      images: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
      category: 'Teaware',
      categories: ['Gifts'],
      sku: 'POT',
      variants: [
        { options: { Size: 'S' }, price: '19.99', stock: 2, sku: 'POT-S' },
        { options: { Size: 'L' }, price: 0.3, stock: null },
      ],
    });
    const res = await api(t, s.secret).get(`/products/${row.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      product: {
        id: row.id,
        object: 'product',
        name: 'Tea pot',
        description: 'Blue\nceramic',
        price: 19.99,
        compare_at_price: 24.5,
        delivery_fee: 7.25,
        currency: 'MAD',
        image_url: 'https://img.example/a.jpg',
        images: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
        category: 'Teaware',
        categories: ['Teaware', 'Gifts'],
        type: 'physical',
        in_stock: true,
        stock: null,
        variants: [
          { options: { Size: 'S' }, price: 19.99, stock: 2, sku: 'POT-S' },
          { options: { Size: 'L' }, price: 0.3, stock: null, sku: null },
        ],
        url: `http://127.0.0.1:3999/s/${s.store.slug}/products/${row.id}`,
      },
    });
  });

  it('delivery_fee null means the store standard fee and stays null; 0 means free shipping and stays 0', async () => {
    const [standard, free] = await addProducts(t, s.store.id, [{ delivery_fee: null }, { delivery_fee: 0 }]);
    expect((await api(t, s.secret).get(`/products/${standard!.id}`)).json().product.delivery_fee).toBeNull();
    expect((await api(t, s.secret).get(`/products/${free!.id}`)).json().product.delivery_fee).toBe(0);
  });

  it('type is one of physical, digital, service; digital and service default to free delivery', async () => {
    const [phys, dig, serv] = await addProducts(t, s.store.id, [{}, { type: 'digital' }, { type: 'service' }]);
    const get = async (id: string) => (await api(t, s.secret).get(`/products/${id}`)).json().product;
    expect(await get(phys!.id)).toMatchObject({ type: 'physical', delivery_fee: null });
    expect(await get(dig!.id)).toMatchObject({ type: 'digital', delivery_fee: 0 });
    expect(await get(serv!.id)).toMatchObject({ type: 'service', delivery_fee: 0 });
  });
});

describe('in_stock is derived from stock and variants', () => {
  const cases: [string, Record<string, unknown>, boolean, number | null][] = [
    ['stock null (unlimited)', { stock: null }, true, null],
    ['stock above 0', { stock: 3 }, true, 3],
    ['stock 0', { stock: 0 }, false, 0],
    [
      'a variant in stock',
      {
        variants: [
          { options: { C: 'a' }, stock: 0 },
          { options: { C: 'b' }, stock: 4 },
        ],
      },
      true,
      4,
    ],
    [
      'an unlimited variant',
      {
        variants: [
          { options: { C: 'a' }, stock: 0 },
          { options: { C: 'b' }, stock: null },
        ],
      },
      true,
      null,
    ],
    [
      'every variant at 0',
      {
        variants: [
          { options: { C: 'a' }, stock: 0 },
          { options: { C: 'b' }, stock: 0 },
        ],
      },
      false,
      0,
    ],
  ];
  for (const [name, input, inStock, stock] of cases) {
    it(`${name}: in_stock ${inStock}, stock ${stock}`, async () => {
      const row = await addProduct(t, s.store.id, input);
      const product = (await api(t, s.secret).get(`/products/${row.id}`)).json().product;
      expect(product.in_stock).toBe(inStock);
      expect(product.stock).toBe(stock);
    });
  }
});

describe('GET /products pages by cursor, newest first, and never lists archived products', () => {
  it('walks every live product once, newest first; has_more false ends with next_cursor null', async () => {
    const own = await createTestStore(t.orm);
    const rows = await addProducts(
      t,
      own.store.id,
      Array.from({ length: 7 }, (_, i) => ({ name: `P${i}`, archived: i === 3 })),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api(t, own.secret).get(`/products?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      seen.push(...body.data.map((p: { id: string }) => p.id));
      expect(body.has_more).toBe(body.next_cursor !== null);
      cursor = body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(
      rows
        .filter((r) => !r.archived)
        .map((r) => r.id)
        .reverse(),
    );
  });

  it('defaults to 25 per page; limit outside 1..100, a foreign cursor or an unknown parameter is 400 naming it', async () => {
    const own = await createTestStore(t.orm);
    await addProducts(
      t,
      own.store.id,
      Array.from({ length: 30 }, () => ({})),
    );
    const body = (await api(t, own.secret).get('/products')).json();
    expect(body.data).toHaveLength(25);
    expect(body.has_more).toBe(true);
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=nope', 'cursor'],
      ['colour=red', 'colour'],
    ]) {
      expect(errorOf(await api(t, own.secret).get(`/products?${query}`))).toMatchObject({ status: 400, code: 'invalid_request', param });
    }
  });

  it('an archived product is 404 by id as well', async () => {
    const row = await addProduct(t, s.store.id, { archived: true });
    expect(errorOf(await api(t, s.secret).get(`/products/${row.id}`))).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('categories and the category filter', () => {
  it('GET /categories lists the names of live products once each, sorted; archived-only names are left out', async () => {
    const own = await createTestStore(t.orm);
    await addProducts(t, own.store.id, [
      { category: 'Tea', categories: ['Gifts'] },
      { category: 'Coffee' },
      { categories: ['Tea'] },
      { category: 'Hidden', archived: true },
    ]);
    const res = await api(t, own.publishable).get('/categories');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: ['Coffee', 'Gifts', 'Tea'] });
  });

  it('GET /products?category= returns the products listing that name, primary or not', async () => {
    const own = await createTestStore(t.orm);
    const [a, , c] = await addProducts(t, own.store.id, [
      { category: 'Tea' },
      { category: 'Coffee' },
      { category: 'Gifts', categories: ['Tea'] },
    ]);
    const ids = (await api(t, own.secret).get('/products?category=Tea')).json().data.map((p: { id: string }) => p.id);
    expect(ids).toEqual([c!.id, a!.id]);
    expect((await api(t, own.secret).get('/products?category=None')).json().data).toEqual([]);
  });
});

describe('only a published store answers its catalogue (404 not_found otherwise)', () => {
  it('GET /products, /products/{id} and /categories of an unpublished store are 404 not_found', async () => {
    const own = await createTestStore(t.orm);
    const row = await addProduct(t, own.store.id);
    await sql(t, 'update stores set published = false where id = ?', [own.store.id]);
    for (const url of ['/products', `/products/${row.id}`, '/categories']) {
      const res = await api(t, own.secret).get(url);
      expect(errorOf(res), url).toMatchObject({ status: 404, code: 'not_found' });
      expect(res.json().error.message).toMatch(/not published/);
    }
  });
});

describe('keys and tenancy', () => {
  it('a publishable key reads the catalogue, from its own website too', async () => {
    const row = await addProduct(t, s.store.id);
    const res = await api(t, s.publishable, { origin: s.origin, 'sec-fetch-mode': 'cors' }).get(`/products/${row.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(s.origin);
  });

  it('a key without products:read, and a connection key, are 403', async () => {
    const noRead = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read'] });
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    expect(errorOf(await api(t, noRead.key).get('/products'))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(errorOf(await api(t, conn.key).get('/products'))).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it("another store's product is 404 and never listed", async () => {
    const other = await createTestStore(t.orm);
    const theirs = await addProduct(t, other.store.id, { name: 'Theirs', category: 'TheirCat' });
    expect(errorOf(await api(t, s.secret).get(`/products/${theirs.id}`))).toMatchObject({ status: 404, code: 'not_found' });
    expect(errorOf(await api(t, s.secret).get('/products/not-a-uuid'))).toMatchObject({ status: 404, code: 'not_found' });
    const mine = await createTestStore(t.orm);
    expect((await api(t, mine.secret).get('/products')).json().data).toEqual([]);
    expect((await api(t, mine.secret).get('/categories')).json().data).toEqual([]);
  });
});
