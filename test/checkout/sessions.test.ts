import { workflowIds } from '../../workflows/catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, api, errorOf, sql } from '../catalog/fixtures.js';

let t: TestApp;
let s: TestStore;
let product: { id: string };
let sized: { id: string };
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  product = await addProduct(t, s.store.id, { name: 'Tea', price: 5, stock: 10 });
  sized = await addProduct(t, s.store.id, {
    name: 'Shirt',
    price: 20,
    variants: [
      { options: { Size: 'M', Colour: 'Red' }, price: 21, stock: 2 },
      { options: { Size: 'L', Colour: 'Red' }, stock: 0 },
    ],
  });
});
afterAll(() => t.close());

const checkout = (items: unknown[], extra: Record<string, unknown> = {}, key = s.secret, headers: Record<string, string> = {}) =>
  api(t, key, headers).checkout(items, extra);

describe('POST /checkout/sessions answers 201 {url, token, expires_at}', () => {
  it('the url is the cart page under the storefront, the token long and random, and only its hash is stored', async () => {
    const before = Date.now();
    const res = await checkout([{ product_id: product.id, quantity: 2 }]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'token', 'url']);
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.url).toBe(`http://127.0.0.1:3999/s/${s.store.slug}/cart/${body.token}`);
    const expires = Date.parse(body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
    const rows = await sql<Record<string, unknown>>(t, 'select * from checkout_sessions where store_id = ?', [s.store.id]);
    expect(JSON.stringify(rows)).not.toContain(body.token);
    expect(rows.some((r) => r.token_hash === hashCheckoutToken(body.token))).toBe(true);
  });

  it('two sessions never share a token', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 10 }, () => checkout([{ product_id: product.id, quantity: 1 }]).then((r) => r.json().token)),
    );
    expect(new Set(tokens).size).toBe(10);
  });

  it('a price sent by the caller is ignored, not refused', async () => {
    const res = await checkout([{ product_id: product.id, quantity: 1, price: 0.01, unit_price: 0 }], { total: 0 });
    expect(res.statusCode).toBe(201);
    const [row] = await sql<{ lines: unknown }>(t, 'select lines from checkout_sessions where token_hash = ?', [
      hashCheckoutToken(res.json().token),
    ]);
    expect(row!.lines).toEqual([{ product_id: product.id, quantity: 1, variant: null }]);
  });
});

describe('lines: 1 to 50, product_id uuid, integer quantity ≥ 1 (400 otherwise)', () => {
  const line = () => ({ product_id: product.id, quantity: 1 });
  const cases: [string, () => unknown[], string][] = [
    ['no lines', () => [], 'items'],
    ['51 lines', () => Array.from({ length: 51 }, line), 'items'],
    ['a product_id that is not a uuid', () => [{ product_id: 'abc', quantity: 1 }], 'items.0.product_id'],
    ['a missing product_id', () => [{ quantity: 1 }], 'items.0.product_id'],
    ['quantity 0', () => [line(), { ...line(), quantity: 0 }], 'items.1.quantity'],
    ['a fractional quantity', () => [{ ...line(), quantity: 1.5 }], 'items.0.quantity'],
    ['a quantity as text', () => [{ ...line(), quantity: '2' }], 'items.0.quantity'],
    ['a variant that is not an object of strings', () => [{ ...line(), variant: { Size: 3 } }], 'items.0.variant.Size'],
  ];
  for (const [name, items, param] of cases) {
    it(`${name} is 400 invalid_request naming ${param}`, async () => {
      expect(errorOf(await checkout(items()))).toMatchObject({ status: 400, code: 'invalid_request', param });
    });
  }

  it('50 lines are accepted', async () => {
    const many = await addProduct(t, s.store.id, { stock: null });
    expect((await checkout(Array.from({ length: 50 }, () => ({ product_id: many.id, quantity: 1 })))).statusCode).toBe(201);
  });
});

describe('lines the catalogue cannot fill are 422 unprocessable with param naming the line', () => {
  it('an unknown product', async () => {
    expect(
      errorOf(
        await checkout([
          { product_id: product.id, quantity: 1 },
          { product_id: crypto.randomUUID(), quantity: 1 },
        ]),
      ),
    ).toMatchObject({
      status: 422,
      code: 'unprocessable',
      param: 'items.1.product_id',
    });
  });

  it('an archived product', async () => {
    const archived = await addProduct(t, s.store.id, { archived: true });
    expect(errorOf(await checkout([{ product_id: archived.id, quantity: 1 }]))).toMatchObject({ status: 422, param: 'items.0.product_id' });
  });

  it("another store's product", async () => {
    const other = await createTestStore(t.orm);
    const theirs = await addProduct(t, other.store.id);
    expect(errorOf(await checkout([{ product_id: theirs.id, quantity: 1 }]))).toMatchObject({ status: 422, param: 'items.0.product_id' });
  });

  it('a product of an unpublished store', async () => {
    const own = await createTestStore(t.orm);
    const row = await addProduct(t, own.store.id);
    await sql(t, 'update stores set published = false where id = ?', [own.store.id]);
    expect(errorOf(await api(t, own.secret).checkout([{ product_id: row.id, quantity: 1 }]))).toMatchObject({
      status: 422,
      code: 'unprocessable',
      param: 'items.0.product_id',
    });
  });

  it('a variant must match exactly one variant’s options', async () => {
    const ok = await checkout([{ product_id: sized.id, quantity: 1, variant: { Colour: 'Red', Size: 'M' } }]);
    expect(ok.statusCode, ok.body).toBe(201);
    for (const variant of [
      { Size: 'M' },
      { Size: 'M', Colour: 'Red', Fit: 'Slim' },
      { Size: 'XL', Colour: 'Red' },
      { size: 'M', colour: 'Red' },
    ]) {
      expect(errorOf(await checkout([{ product_id: sized.id, quantity: 1, variant }])), JSON.stringify(variant)).toMatchObject({
        status: 422,
        param: 'items.0.variant',
      });
    }
  });

  it('a product with variants needs one; a product without variants takes none', async () => {
    expect(errorOf(await checkout([{ product_id: sized.id, quantity: 1 }]))).toMatchObject({ status: 422, param: 'items.0.variant' });
    expect(errorOf(await checkout([{ product_id: product.id, quantity: 1, variant: { Size: 'M' } }]))).toMatchObject({
      status: 422,
      param: 'items.0.variant',
    });
    expect((await checkout([{ product_id: product.id, quantity: 1, variant: {} }])).statusCode).toBe(201);
  });

  it('stock that cannot cover a line, counting earlier lines of the same product and variant', async () => {
    expect(errorOf(await checkout([{ product_id: product.id, quantity: 11 }]))).toMatchObject({ status: 422, param: 'items.0.quantity' });
    expect(
      errorOf(
        await checkout([
          { product_id: product.id, quantity: 6 },
          { product_id: product.id, quantity: 5 },
        ]),
      ),
    ).toMatchObject({ status: 422, param: 'items.1.quantity' });
    expect(errorOf(await checkout([{ product_id: sized.id, quantity: 1, variant: { Size: 'L', Colour: 'Red' } }]))).toMatchObject({
      status: 422,
      param: 'items.0.quantity',
    });
    expect((await checkout([{ product_id: product.id, quantity: 10 }])).statusCode).toBe(201);
  });
});

describe('keys and return_url', () => {
  it('a publishable key may set a return_url on its allowed websites', async () => {
    const res = await checkout([{ product_id: product.id, quantity: 1 }], { return_url: `${s.origin}/thanks?x=1` }, s.publishable, {
      origin: s.origin,
      'sec-fetch-mode': 'cors',
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('a publishable key with a return_url elsewhere is 403 forbidden naming return_url', async () => {
    for (const url of ['https://evil.example/x', 'http://shop.example/x', 'https://shop.example:8443/x']) {
      expect(errorOf(await checkout([{ product_id: product.id, quantity: 1 }], { return_url: url }, s.publishable)), url).toMatchObject({
        status: 403,
        code: 'forbidden',
        param: 'return_url',
      });
    }
  });

  it('a secret key may set any https return_url; http is 400 and a non-web URL too', async () => {
    expect((await checkout([{ product_id: product.id, quantity: 1 }], { return_url: 'https://anywhere.example/done' })).statusCode).toBe(
      201,
    );
    expect(
      errorOf(await checkout([{ product_id: product.id, quantity: 1 }], { return_url: 'http://anywhere.example/done' })),
    ).toMatchObject({ status: 400, param: 'return_url' });
    expect(errorOf(await checkout([{ product_id: product.id, quantity: 1 }], { return_url: 'javascript:alert(1)' }))).toMatchObject({
      status: 400,
      param: 'return_url',
    });
  });

  it('a key without checkout:write is 403; a legacy key is 403', async () => {
    const readOnly = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['products:read'] });
    const legacy = await addKey(t.orm, s.store.id, { kind: 'legacy' });
    for (const key of [readOnly.key, legacy.key]) {
      expect(errorOf(await checkout([{ product_id: product.id, quantity: 1 }], {}, key))).toMatchObject({ status: 403, code: 'forbidden' });
    }
  });
});

describe('each session is owned by its store’s expiry workflow of its time bucket, handed over through the outbox', () => {
  // The default day-long sessions: buckets of 60 s, aligned to the epoch.
  const bucketEnd = (expiresAt: string) => new Date(Math.ceil(Date.parse(expiresAt) / 60_000) * 60_000).toISOString();

  it('the hand-off is written with the session; the workflow checkout-expiry/<store id>/<bucket end> runs with StoreId and a summary', async () => {
    const res = await checkout([{ product_id: product.id, quantity: 1 }]);
    const endsAt = bucketEnd(res.json().expires_at);
    const workflowId = workflowIds.checkoutExpiry(s.store.id, endsAt);
    // Earlier tests of this file made sessions of the same store, most likely in the same bucket: still one row.
    const rows = await sql<{ workflow_type: string; args: unknown[]; search_attributes: unknown }>(
      t,
      'select workflow_type, args, search_attributes from outbox where workflow_id = ?',
      [workflowId],
    );
    expect(rows).toEqual([
      { workflow_type: 'checkoutExpiryWorkflow', args: [{ storeId: s.store.id, endsAt }], search_attributes: { StoreId: s.store.id } },
    ]);
    const handle = t.temporal.client.workflow.getHandle(workflowId);
    await eventually(
      () =>
        handle.describe().then(
          (d) => d.status.name === 'RUNNING',
          () => false,
        ),
      20_000,
      'workflow running',
    );
    const description = await handle.describe();
    expect(description.type).toBe('checkoutExpiryWorkflow');
    expect(description.searchAttributes.StoreId).toEqual([s.store.id]);
    expect(await description.staticSummary()).toBe(`checkout sessions of store ${s.store.id} expiring by ${endsAt}`);
    await handle.terminate('test done');
  });

  it('another store’s sessions of the same time bucket have a workflow of their own', async () => {
    const other = await createTestStore(t.orm);
    const tea = await addProduct(t, other.store.id);
    const [mine, theirs] = await Promise.all([
      checkout([{ product_id: product.id, quantity: 1 }]),
      api(t, other.secret).checkout([{ product_id: tea.id, quantity: 1 }]),
    ]);
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(bucketEnd(theirs.json().expires_at)).toBe(bucketEnd(mine.json().expires_at));
    const ids = [
      workflowIds.checkoutExpiry(s.store.id, bucketEnd(mine.json().expires_at)),
      workflowIds.checkoutExpiry(other.store.id, bucketEnd(theirs.json().expires_at)),
    ];
    const rows = await sql<{ workflow_id: string }>(t, 'select workflow_id from outbox where workflow_id in (?, ?)', ids);
    expect(rows.map((r) => r.workflow_id).sort()).toEqual([...ids].sort());
    const handles = ids.map((id) => t.temporal.client.workflow.getHandle(id));
    await eventually(
      () =>
        handles[1]!.describe().then(
          (d) => d.status.name === 'RUNNING',
          () => false,
        ),
      20_000,
      'the other store’s workflow running',
    );
    expect((await handles[1]!.describe()).searchAttributes.StoreId).toEqual([other.store.id]);
    // Day-long timers: end them here, once started (the first may be the one the test above ended already).
    await eventually(
      () =>
        handles[0]!.describe().then(
          () => true,
          () => false,
        ),
      20_000,
      'this store’s workflow started',
    );
    await Promise.all(handles.map((h) => h.terminate('test done').catch(() => undefined)));
  });
});
