// The Products tab: list with its empty state, add and edit with per-field errors that keep the typed
// values, archive and restore (the API's catalogue follows), and the CSV import on the CLI's import code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../domain/csv.js';
import { productsFromCsv } from '../../services/catalog/import.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey } from '../helpers/store.js';
import { PageClient } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

async function ownerWithStore() {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore('Atlas Products');
  const page = (rest = '') => `/dashboard/stores/${storeId}${rest}`;
  const key = await addKey(t.orm, storeId, { kind: 'secret', scopes: ['products:read'] });
  const catalogue = async () =>
    (await t.request({ method: 'GET', url: '/api/v1/products', headers: bearer(key.key) })).json().data as {
      id: string;
      name: string;
      price: number;
      stock: number | null;
    }[];
  return { c, storeId, page, catalogue };
}

describe('products', () => {
  it('the empty list names the next step; a product is added, shown in the store’s currency, edited, archived and restored', async () => {
    const { c, page, catalogue } = await ownerWithStore();
    const empty = (await c.get(page('/products'))).body;
    expect(empty).toContain('No products yet.');
    expect(empty).toContain(`href="${page('/products/new')}"`);

    const bad = await c.post(
      page('/products'),
      { name: 'Mint <tea>', price: '19.999.1', stock: 'lots', category: 'Tea' },
      { from: page('/products/new') },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/id="e-price"[^>]*>Price must be an amount such as 19\.99/);
    expect(bad.body).toMatch(/id="e-stock"[^>]*>Stock must be a whole number/);
    // The typed values are kept (and escaped).
    expect(bad.body).toContain('value="Mint &lt;tea&gt;"');
    expect(bad.body).toContain('value="19.999.1"');
    expect(bad.body).toContain('value="lots"');
    expect(bad.body).toContain('value="Tea"');
    expect(await catalogue()).toEqual([]);

    const added = await c.post(
      page('/products'),
      { name: 'Mint tea', price: '19.99', stock: '40', category: 'Tea' },
      { from: page('/products/new') },
    );
    expect(added.statusCode).toBe(303);
    const [product] = await catalogue();
    expect(product).toMatchObject({ name: 'Mint tea', price: 19.99, stock: 40 });
    const list = (await c.get(page('/products?done=created'))).body;
    expect(list).toContain('€19.99');
    expect(list).toContain('Product added.');

    const edit = page(`/products/${product!.id}`);
    expect((await c.get(edit)).body).toContain('value="19.99"');
    const refused = await c.post(edit, { name: '', price: '-1' }, { from: edit });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/id="e-name"/);
    expect(refused.body).toMatch(/id="e-price"[^>]*>Price must not be negative/);
    const saved = await c.post(edit, { name: 'Mint tea (green)', price: '21.5', stock: '', category: 'Tea' }, { from: edit });
    expect(saved.headers.location).toBe(`${edit}?done=saved`);
    expect((await catalogue())[0]).toMatchObject({ name: 'Mint tea (green)', price: 21.5, stock: null });

    const archived = await c.post(page(`/products/${product!.id}/archive`), { archived: 'true' }, { from: page('/products') });
    expect(archived.headers.location).toBe(page('/products?done=archived'));
    expect(await catalogue()).toEqual([]);
    expect((await c.get(page('/products'))).body).toContain('Archived');
    await c.post(page(`/products/${product!.id}/archive`), { archived: 'false' }, { from: page('/products') });
    expect((await catalogue()).map((p) => p.name)).toEqual(['Mint tea (green)']);
  });

  it('imports a CSV file through the import code: good rows added, bad rows listed by line', async () => {
    const { c, page, catalogue } = await ownerWithStore();
    const csv =
      'Name,Price,Stock,Category,Categories\r\n"Tea, green",12.50,10,Tea,Gifts|Hot\r\nNo price,,3,,\r\nSaffron,"99",,Spices,\r\nBad stock,5,-2,,\r\n';
    const res = await c.postMultipart(
      page('/products/import'),
      {},
      { file: { name: 'products.csv', type: 'text/csv', text: csv } },
      page('/products'),
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Imported 2 of 4 product(s).');
    const failures = /<table[^>]*id="import-failures"[\s\S]*?<\/table>/.exec(res.body)![0];
    expect(failures).toMatch(/<td>3<\/td><td>No price<\/td><td>price is missing or not a valid value/);
    expect(failures).toMatch(/<td>5<\/td><td>Bad stock<\/td>/);
    const names = (await catalogue()).map((p) => p.name).sort();
    expect(names).toEqual(['Saffron', 'Tea, green']);

    const wrong = await c.postMultipart(
      page('/products/import'),
      {},
      { file: { name: 'x.csv', type: 'text/csv', text: 'title,cost\nA,1\n' } },
      page('/products'),
    );
    expect(wrong.statusCode).toBe(400);
    // Only the import takes a file (and its larger body).
    const elsewhere = await c.postMultipart(
      page('/settings'),
      { name: 'X' },
      { file: { name: 'x.csv', type: 'text/csv', text: csv } },
      page('/settings'),
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.body, elsewhere.body.slice(-600)).toContain('This form does not take a file.');
    expect(wrong.body).toContain('Nothing imported: the first line must name the columns'.replace('the first', 'The first'));
  });

  it('a product of another store, or an unknown id, is not found', async () => {
    const a = await ownerWithStore();
    await a.c.post(a.page('/products'), { name: 'Only mine', price: '1' }, { from: a.page('/products/new') });
    const [mine] = await a.catalogue();
    const b = await ownerWithStore();
    expect((await b.c.get(b.page(`/products/${mine!.id}`))).statusCode).toBe(404);
    expect((await b.c.post(b.page(`/products/${mine!.id}/archive`), { archived: 'true' }, { from: b.page('/products') })).statusCode).toBe(
      404,
    );
    expect((await a.catalogue()).length).toBe(1);
  });
});

describe('the CSV reader', () => {
  it('reads quoted fields with commas, quotes and line breaks, CRLF and a byte order mark', () => {
    expect(parseCsv('\uFEFFname,price\r\n"Mint, ""fresh""\ntea",1\n')).toEqual([
      ['name', 'price'],
      ['Mint, "fresh"\ntea', '1'],
    ]);
    expect(() => parseCsv('name\n"open')).toThrow('line 2');
  });
  it('maps columns to product fields, and refuses unknown columns by name', () => {
    expect(productsFromCsv('name,price,stock,archived,categories\nA,1,3,yes,x| y\n')).toEqual([
      { name: 'A', price: '1', stock: 3, archived: true, categories: ['x', 'y'] },
    ]);
    expect(() => productsFromCsv('name,price,colour\nA,1,red\n')).toThrow('Unknown column(s): colour');
  });
});
