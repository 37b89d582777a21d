// What the request fuzz found and api/plugins/no-nul-text.ts fixed: NUL characters and lone surrogates
// reached PostgreSQL (503 "invalid message format" for text, 500 for jsonb). Now they never do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanRequestText } from '../../api/plugins/no-nul-text.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
let admin: string;
let connection: { id: string; key: string };
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  admin = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'products:read', 'webhooks:write'] }))
    .key;
  connection = await createTestConnection(t.orm, s.store.id, 'platform_a');
});
afterAll(() => t.close());

const call = (key: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  t.request({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
const invalid = (res: Awaited<ReturnType<typeof call>>, param: string) => {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().error).toMatchObject({ code: 'invalid_request', param });
};

describe('a NUL character is refused with 400 naming the field', () => {
  it('in a query parameter or a path parameter', async () => {
    invalid(await call(admin, 'GET', '/api/v1/orders?external_id=a%00b'), 'external_id');
    invalid(await call(admin, 'GET', '/api/v1/products?category=%00'), 'category');
    invalid(await call(connection.key, 'DELETE', '/api/v1/external-products/a%00b'), 'external_id');
  });

  it('in a body field, nested or as an object key', async () => {
    invalid(await call(connection.key, 'PUT', '/api/v1/connection', { shop_name: 'a\u0000b' }), 'shop_name');
    invalid(
      await call(connection.key, 'POST', '/api/v1/connection/updates/ack', {
        applied: [],
        failed: [{ id: crypto.randomUUID(), error: '\u0000' }],
      }),
      'failed.0.error',
    );
    invalid(
      await call(connection.key, 'POST', '/api/v1/external-products/batch', {
        products: [{ external_id: 'x', name: 'n', images: ['https://i.example/\u0000'] }],
      }),
      'products.0.images.0',
    );
    invalid(await call(admin, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', ['ev\u0000ents']: ['*'] }), 'events');
  });

  it('on the HTML pages too (a 400 page, not a 503)', async () => {
    expect((await t.request({ method: 'GET', url: '/s/%00/track' })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: `/s/${s.store.slug}?cursor=%00` })).statusCode).toBeLessThan(500);
  });
});

describe('order inputs clean their own text, so one bad order never fails a batch', () => {
  it('a NUL inside an order text field is removed and the order is accepted', async () => {
    const res = await call(admin, 'POST', '/api/v1/orders', {
      external_id: `nul-${Date.now()}`,
      totals: { total: 1 },
      note: 'left\u0000 at the door',
      customer: { name: 'A\u0000mina' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().order).toMatchObject({ note: 'left at the door', customer: { name: 'Amina' } });
  });

  it('an external_id of NUL characters only is that order’s error, not the batch’s', async () => {
    invalid(await call(admin, 'POST', '/api/v1/orders', { external_id: '\u0000\u0000', totals: { total: 1 } }), 'external_id');
    const batch = await call(admin, 'POST', '/api/v1/orders/batch', {
      orders: [
        { external_id: '\u0000', totals: { total: 1 } },
        { external_id: `ok-${Date.now()}`, totals: { total: 2 } },
      ],
    });
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json().results.map((r: { ok: boolean }) => r.ok)).toEqual([false, true]);
  });
});

describe('a lone surrogate becomes U+FFFD, as any UTF-8 encoder makes it', () => {
  it('in an order note, a batch id and an ack error (all stored as jsonb on the way)', async () => {
    const res = await call(admin, 'POST', '/api/v1/orders', {
      external_id: `sur-${Date.now()}\ud800`,
      totals: { total: 1 },
      note: 'x\udfffy',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().order.note).toBe('x\ufffdy');
    expect(res.json().order.external_id).toMatch(/\ufffd$/);
    expect(
      (
        await call(connection.key, 'POST', '/api/v1/connection/updates/ack', {
          applied: ['\ud800'],
          failed: [{ id: crypto.randomUUID(), error: '\udc00' }],
        })
      ).json(),
    ).toEqual({ acknowledged: 0 });
    const xp = await call(connection.key, 'POST', '/api/v1/external-products/batch', {
      products: [{ external_id: 'sur\ud800', name: 'n\udc00', category: '\ud800' }],
    });
    expect(xp.statusCode, xp.body).toBe(200);
    expect(xp.json().results[0]).toMatchObject({ ok: true, external_id: 'sur\ufffd' });
  });

  it('cleanRequestText leaves paired surrogates (emoji) alone and walks 5,000 levels without recursion', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 5000; i++) deep = [deep];
    const { value } = cleanRequestText({ a: '👩‍👩‍👧 ok', deep }, false);
    expect((value as { a: string }).a).toBe('👩‍👩‍👧 ok');
    let inner = (value as { deep: unknown }).deep;
    while (Array.isArray(inner)) inner = inner[0];
    expect(inner).toBe('\ufffd');
  });
});
