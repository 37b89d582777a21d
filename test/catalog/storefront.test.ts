import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_HEADERS } from '../../web/html.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, addProducts, api, pathOf, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { currency: 'EUR' });
});
afterAll(() => t.close());

const get = (url: string) => t.request({ method: 'GET', url });

describe("a product's url is a real HTML page on the storefront", () => {
  it('the url of the API answers 200 HTML with the page security headers, the price and the variants', async () => {
    const row = await addProduct(t, s.store.id, {
      name: 'Linen shirt',
      price: '1234.5',
      description: 'Soft linen',
      variants: [
        { options: { Size: 'M' }, price: 30, stock: 0 },
        { options: { Size: 'L' }, price: 32, stock: 3 },
      ],
    });
    const { url } = (await api(t, s.secret).get(`/products/${row.id}`)).json().product;
    const res = await get(pathOf(url));
    expect(res.statusCode).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers[name]).toBe(value);
    expect(res.body).toContain('<h1 id="product-name">Linen shirt</h1>');
    expect(res.body).toContain('1,234.50 EUR');
    expect(res.body).toContain('Size: L');
    expect(res.body).toContain('Soft linen');
    expect(res.body).not.toMatch(/<script/i);
  });

  it('escapes every text of the product', async () => {
    const row = await addProduct(t, s.store.id, {
      name: 'A "quoted" name & more',
      description: 'x &lt;script&gt;alert(1)&lt;/script&gt;',
      category: "Cat's <i>",
    });
    const res = await get(`/s/${s.store.slug}/products/${row.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('A &quot;quoted&quot; name &amp; more');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).not.toContain('<script>alert(1)');
  });

  it('an archived product, an unknown id, or another store’s product is a 404 page', async () => {
    const archived = await addProduct(t, s.store.id, { archived: true });
    const other = await createTestStore(t.orm);
    const theirs = await addProduct(t, other.store.id);
    for (const id of [archived.id, theirs.id, 'nope']) {
      const res = await get(`/s/${s.store.slug}/products/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});

describe('the storefront lists the live products of a published store', () => {
  it('{PUBLIC_URL}/s/{slug} shows live products with links to their pages, and never archived ones', async () => {
    const own = await createTestStore(t.orm);
    const [live, archived] = await addProducts(t, own.store.id, [{ name: 'Shown' }, { name: 'Hidden', archived: true }]);
    const res = await get(`/s/${own.store.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Shown');
    expect(res.body).toContain(`/s/${own.store.slug}/products/${live!.id}`);
    expect(res.body).not.toContain(archived!.id);
  });

  it('pages of 48 with a link to the next page', async () => {
    const own = await createTestStore(t.orm);
    await addProducts(
      t,
      own.store.id,
      Array.from({ length: 50 }, (_, i) => ({ name: `Item ${i}` })),
    );
    const first = await get(`/s/${own.store.slug}`);
    const next = /href="([^"]+\?cursor=[^"]+)"/.exec(first.body)![1]!;
    const second = await get(pathOf(next.replaceAll('&amp;', '&')));
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('Item 0');
    expect(second.body).toContain('Item 1');
    expect(second.body).not.toContain('Item 2<');
  });

  it('an unpublished or unknown store is a 404 page, its products too', async () => {
    const own = await createTestStore(t.orm);
    const row = await addProduct(t, own.store.id);
    await sql(t, 'update stores set published = false where id = ?', [own.store.id]);
    expect((await get(`/s/${own.store.slug}`)).statusCode).toBe(404);
    expect((await get(`/s/${own.store.slug}/products/${row.id}`)).statusCode).toBe(404);
    expect((await get('/s/no-such-shop-anywhere')).statusCode).toBe(404);
  });
});
