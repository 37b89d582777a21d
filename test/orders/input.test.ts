import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { errorOf, orderBody, orderCount, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
});
afterAll(() => t.close());

/** A copy of the body with one dotted path set (or removed when value is undefined). */
function withPath(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  if (value === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
  return copy;
}

describe('POST /orders refuses missing required fields', () => {
  it('answers a missing external_id with 400 param external_id', async () => {
    expect(errorOf(await api.post(withPath(orderBody(), 'external_id', undefined)))).toEqual({
      status: 400,
      code: 'invalid_request',
      param: 'external_id',
    });
  });

  it('answers missing totals, or a missing totals.total, with 400 param totals.total', async () => {
    expect(errorOf(await api.post(withPath(orderBody(), 'totals', undefined)))).toMatchObject({ status: 400, param: 'totals.total' });
    expect(errorOf(await api.post(withPath(orderBody(), 'totals.total', undefined)))).toMatchObject({ status: 400, param: 'totals.total' });
  });
});

describe('POST /orders names the field of a bad value as a dotted path', () => {
  const bad: [string, unknown][] = [
    ['external_id', true],
    ['external_id', ''],
    ['totals.total', 'abc'],
    ['totals.total', -1],
    ['totals.discount', '5'],
    ['totals.shipping', {}],
    ['totals.cod_fee', -2],
    ['totals.tax', 'x'],
    ['number', false],
    ['status', 5],
    ['status_kind', 'magento'],
    ['payment', 'cod'],
    ['payment.status', 'bogus'],
    ['payment.method', 5],
    ['payment.method_title', []],
    ['payment.is_cod', 'yes'],
    ['payment.transaction_id', 7],
    ['payment.refunded_amount', 'lots'],
    ['currency', 'EURO'],
    ['customer', 'Ali'],
    ['customer.name', 12],
    ['customer.email', 12],
    ['customer.phone', 612345678],
    ['customer.address_line1', {}],
    ['customer.address_line2', []],
    ['customer.city', true],
    ['customer.state', 1],
    ['customer.postcode', false],
    ['customer.country', 2],
    ['items', 'tea'],
    ['items.0', 'tea'],
    ['items.0.quantity', 'two'],
    ['items.0.quantity', -1],
    ['items.0.unit_price', '19.99'],
    ['items.0.name', 1],
    ['items.0.sku', true],
    ['items.0.variant', {}],
    ['items.0.image_url', 3],
    ['items.0.external_product_id', true],
    ['note', 42],
    ['tracking', 'ABC'],
    ['tracking.number', {}],
    ['tracking.courier', 1],
    ['tracking.url', true],
    ['created_at', 'yesterday'],
    ['updated_at', '2026-13-01T00:00:00Z'],
    // PostgreSQL has no year 0, and shows earlier moments as BC text no reader takes back: once a 500.
    ['created_at', '0000-06-01T00:00:00Z'],
    ['updated_at', '0001-01-01T00:00:00+01:00'],
    ['admin_url', 9],
    ['deleted', 'yes'],
    ['test', 1],
    ['delivered', 'true'],
  ];
  it.each(bad)('answers a bad %s (%j) with 400 naming it', async (path, value) => {
    const res = await api.post(withPath(orderBody({ tracking: { number: null } }), path, value));
    expect(errorOf(res)).toEqual({ status: 400, code: 'invalid_request', param: path });
  });

  it('answers an unknown status with 400 param status, never a default', async () => {
    const body = orderBody({ status: 'teleported' });
    expect(errorOf(await api.post(body))).toEqual({ status: 400, code: 'invalid_request', param: 'status' });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(0);
  });

  it('answers a body over 1 MB with 413', async () => {
    const res = await api.post(orderBody({ note: 'x'.repeat(1_100_000) }));
    expect(errorOf(res)).toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});

describe('POST /orders is lenient where the spec says so', () => {
  it('ignores unknown fields', async () => {
    const res = await api.post(orderBody({ colour: 'blue', customer: { name: 'Ali', shoe_size: 44 }, source: 'native' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().order).not.toHaveProperty('colour');
    expect(res.json().order.source).toBe('api');
  });

  it('accepts more than 200 items and keeps the first 200', async () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ name: `Item ${i}`, quantity: 1, unit_price: 1 }));
    const res = await api.post(orderBody({ items }));
    expect(res.statusCode).toBe(201);
    const kept = res.json().order.items;
    expect(kept).toHaveLength(200);
    expect(kept.at(-1).name).toBe('Item 199');
  });

  it('accepts integer external ids and numbers as strings', async () => {
    const res = await api.post(orderBody({ external_id: 987654, number: 1042 }));
    expect(res.json().order).toMatchObject({ external_id: '987654', order_number: '1042' });
  });
});

describe('POST /orders cleans text fields', () => {
  it('trims and strips HTML tags, decoding entities', async () => {
    const res = await api.post(
      orderBody({
        customer: {
          name: '  <b>Ali</b> &amp; Co ',
          address_line1: 'Rue 1<br>Casablanca',
          city: ' <script>alert(1)</script>Rabat ',
          country: 'MA',
          phone: ' +212612345678 ',
        },
        items: [{ name: '<i>Mint</i>   tea', quantity: 1, unit_price: 2, variant: '   ' }],
        note: '<p>Ring twice</p><p>Thanks</p>',
        number: '  1042 ',
      }),
    );
    const { order } = res.json();
    expect(order.customer).toMatchObject({ name: 'Ali & Co', address: 'Rue 1 Casablanca', city: 'Rabat', phone: '+212612345678' });
    expect(order.items[0]).toMatchObject({ name: 'Mint tea', variant: null });
    expect(order.note).toBe('Ring twice\n\nThanks');
    expect(order.order_number).toBe('1042');
  });
});

describe('POST /orders keeps money exact', () => {
  it('returns amounts as plain numbers, exactly as sent, and stores them in numeric columns', async () => {
    const items = [1, 2, 3].map((n) => ({ name: `Line ${n}`, quantity: 1, unit_price: 19.99 }));
    const res = await api.post(orderBody({ items, totals: { total: 59.97, shipping: 0.1, discount: 0.2, cod_fee: 12.3456 } }));
    const { order } = res.json();
    expect(order.totals).toEqual({ total: 59.97, shipping: 0.1, discount: 0.2, cod_fee: 12.3456 });
    expect(order.items.map((i: { unit_price: number }) => i.unit_price)).toEqual([19.99, 19.99, 19.99]);
    const [row] = await sql<{ total: string; sum: string }>(
      t,
      `select total::text, (select sum((i->>'unit_price')::numeric) from jsonb_array_elements(items) i)::text as sum from orders where id = ?`,
      [order.id],
    );
    // Prices are stored as exact JSON numbers (db/tables/orders.ts StoredItem): their sum has their scale.
    expect(row).toEqual({ total: '59.9700', sum: '59.97' });
  });

  it('refuses an amount with more than 4 decimals, naming the field', async () => {
    expect(errorOf(await api.post(orderBody({ totals: { total: 19.99999 } })))).toMatchObject({ status: 400, param: 'totals.total' });
    const items = [{ name: 'x', quantity: 1, unit_price: 0.00001 }];
    expect(errorOf(await api.post(orderBody({ items })))).toMatchObject({ status: 400, param: 'items.0.unit_price' });
  });

  it('refuses an amount of 100,000,000,000 or more', async () => {
    expect(errorOf(await api.post(orderBody({ totals: { total: 1e11 } })))).toMatchObject({ status: 400, param: 'totals.total' });
  });
});

describe('POST /orders keeps only absolute http(s) links (issue 16, security review)', () => {
  it('drops a javascript: tracking url, admin_url and image_url (the order is kept), so GET /tracking links to none', async () => {
    const number = `JS-${process.pid}-${Date.now()}`;
    const res = await api.post(
      orderBody({
        number,
        tracking: { number: 'AWB1', url: 'javascript:alert(document.cookie)' },
        admin_url: ' JavaScript:alert(1)',
        items: [
          { name: 'Tea', quantity: 1, unit_price: 1, image_url: 'java\tscript:alert(1)' },
          { name: 'Cup', quantity: 1, unit_price: 1, image_url: 'data:text/html,<script>alert(1)</script>' },
          { name: 'Pot', quantity: 1, unit_price: 1, image_url: 'https://img.example/pot.png' },
          { name: 'Box', quantity: 1, unit_price: 1, image_url: '//img.example/relative.png' },
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
    const order = res.json().order;
    expect(order.tracking.url).toBeNull();
    expect(order.tracking.number).toBe('AWB1');
    expect(order.external_url).toBeNull();
    const tracked = await t.request({
      method: 'GET',
      url: `/api/v1/tracking?order=${encodeURIComponent(number)}`,
      headers: { authorization: `Bearer ${s.secret}` },
    });
    expect(tracked.statusCode).toBe(200);
    expect(tracked.json().order.tracking_link).toBeNull();
    expect(tracked.json().order.items.map((i: { image_url: string | null }) => i.image_url)).toEqual([
      null,
      null,
      'https://img.example/pot.png',
      null,
    ]);
    expect(tracked.body).not.toMatch(/javascript|data:text/i);
  });

  it('keeps http and https links as sent', async () => {
    const res = await api.post(orderBody({ tracking: { url: 'http://track.example/1?a=b' }, admin_url: 'HTTPS://shop.example/admin/1' }));
    expect(res.statusCode).toBe(201);
    expect(res.json().order.tracking.url).toBe('http://track.example/1?a=b');
    expect(res.json().order.external_url).toBe('HTTPS://shop.example/admin/1');
  });
});
