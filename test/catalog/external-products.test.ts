import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { api, errorOf, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let conn: { id: string; key: string };
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
});
afterAll(() => t.close());

const product = (externalId: string | number, extra: Record<string, unknown> = {}) => ({
  external_id: externalId,
  name: `Outside ${externalId}`,
  price: 12.5,
  ...extra,
});
const held = (connectionId: string, externalId: string) =>
  sql<{ name: string; price: string | null; category: string | null; stock: string | null }>(
    t,
    'select name, price, category, stock from external_products where connection_id = ? and external_id = ?',
    [connectionId, externalId],
  );

describe('only connection keys with products:write send external products', () => {
  it('a secret key, a secret key holding products:write, and a publishable key are 403', async () => {
    const writer = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['products:write'] });
    for (const key of [s.secret, writer.key, s.publishable]) {
      expect(errorOf(await api(t, key).post('/external-products/batch', { products: [product('x')] }))).toMatchObject({
        status: 403,
        code: 'forbidden',
      });
      expect(errorOf(await api(t, key).delete('/external-products/x'))).toMatchObject({ status: 403, code: 'forbidden' });
    }
  });
});

describe('POST /external-products/batch: 1 to 100 products, one result each', () => {
  it('0 or 101 products is 400 naming products', async () => {
    for (const n of [0, 101]) {
      const res = await api(t, conn.key).post('/external-products/batch', {
        products: Array.from({ length: n }, (_, i) => product(`n${i}`)),
      });
      expect(errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', param: 'products' });
    }
  });

  it('100 products are accepted with 100 results in input order', async () => {
    const products = Array.from({ length: 100 }, (_, i) => product(`hundred-${i}`));
    const res = await api(t, conn.key).post('/external-products/batch', { products });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual(products.map((p) => ({ external_id: p.external_id, ok: true })));
  });

  it('a bad product fails alone, with an error naming its field; the others are stored', async () => {
    const res = await api(t, conn.key).post('/external-products/batch', {
      products: [
        product('good-1'),
        { external_id: 'bad-1', price: 3 },
        product('bad-2', { price: 1.23456 }),
        'nonsense',
        product(77, { stock: -2 }),
      ],
    });
    expect(res.statusCode).toBe(200);
    const results = res.json().results;
    expect(results[0]).toEqual({ external_id: 'good-1', ok: true });
    expect(results[1]).toMatchObject({ external_id: 'bad-1', ok: false, error: expect.stringMatching(/^name: /) });
    expect(results[2]).toMatchObject({ external_id: 'bad-2', ok: false, error: expect.stringMatching(/^price: /) });
    expect(results[3]).toMatchObject({ external_id: null, ok: false });
    expect(results[4]).toEqual({ external_id: '77', ok: true });
    expect(await held(conn.id, 'good-1')).toHaveLength(1);
    expect(await held(conn.id, 'bad-1')).toHaveLength(0);
    expect((await held(conn.id, '77'))[0]!.stock).toBe('-2.0000');
  });
});

describe('upsert by external_id per connection', () => {
  it('re-sending an external id updates the one copy; text is cleaned', async () => {
    await api(t, conn.key).post('/external-products/batch', { products: [product('up-1', { category: 'Old' })] });
    await api(t, conn.key).post('/external-products/batch', {
      products: [product('up-1', { name: '<b>New</b> name', category: 'New', price: 9.99 })],
    });
    expect(await held(conn.id, 'up-1')).toEqual([{ name: 'New name', price: '9.9900', category: 'New', stock: null }]);
  });

  it('the same external id twice in one batch keeps the later one', async () => {
    const res = await api(t, conn.key).post('/external-products/batch', {
      products: [product('dup', { price: 1 }), product('dup', { price: 2 })],
    });
    expect(res.json().results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect((await held(conn.id, 'dup'))[0]!.price).toBe('2.0000');
  });

  it('a copy older than the one held (updated_at) changes nothing', async () => {
    await api(t, conn.key).post('/external-products/batch', {
      products: [product('aged', { price: 5, updated_at: '2026-01-02T00:00:00Z' })],
    });
    await api(t, conn.key).post('/external-products/batch', {
      products: [product('aged', { price: 1, updated_at: '2026-01-01T00:00:00Z' })],
    });
    expect((await held(conn.id, 'aged'))[0]!.price).toBe('5.0000');
  });

  it('two connections of a store keep their own products under the same external id', async () => {
    const other = await createTestConnection(t.orm, s.store.id, 'platform_b', 'https://shop-b.example');
    await api(t, conn.key).post('/external-products/batch', { products: [product('shared', { name: 'From A' })] });
    await api(t, other.key).post('/external-products/batch', { products: [product('shared', { name: 'From B' })] });
    expect((await held(conn.id, 'shared'))[0]!.name).toBe('From A');
    expect((await held(other.id, 'shared'))[0]!.name).toBe('From B');
  });
});

describe('DELETE /external-products/{external_id}', () => {
  it('removes the copy: deleted true, then false; another connection cannot remove it', async () => {
    await api(t, conn.key).post('/external-products/batch', { products: [product('gone')] });
    const other = await createTestConnection(t.orm, s.store.id, 'platform_b', 'https://shop-c.example');
    expect((await api(t, other.key).delete('/external-products/gone')).json()).toEqual({ external_id: 'gone', deleted: false });
    expect(await held(conn.id, 'gone')).toHaveLength(1);
    const res = await api(t, conn.key).delete('/external-products/gone');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ external_id: 'gone', deleted: true });
    expect((await api(t, conn.key).delete('/external-products/gone')).json()).toEqual({ external_id: 'gone', deleted: false });
  });
});

describe('external products live apart from the catalogue', () => {
  it('never appear in GET /products, GET /categories or on the storefront', async () => {
    const own = await createTestStore(t.orm);
    const c = await createTestConnection(t.orm, own.store.id, 'platform_a');
    await api(t, c.key).post('/external-products/batch', {
      products: [product('apart', { name: 'Outside only', category: 'OutsideCat' })],
    });
    expect((await api(t, own.secret).get('/products')).json().data).toEqual([]);
    expect((await api(t, own.secret).get('/categories')).json().data).toEqual([]);
    const page = await t.request({ method: 'GET', url: `/s/${own.store.slug}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Outside only');
  });
});
