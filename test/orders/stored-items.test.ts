// How orders.items stores a line item (db/tables/orders.ts StoredItem): prices as exact JSON numbers, the
// item as the API shows it, so an order's events take their items from the row written; rows written
// before that change hold prices as numeric text and must read, and fingerprint, as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createHookedStore, createTestStore, type TestStore } from '../helpers/store.js';
import { startReceiver } from '../helpers/receiver.js';
import { orderBody, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let quiet: TestStore;
let hooked: TestStore;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await startReceiver();
  // A store with nothing to send takes the write's quiet variant, one with an endpoint the full one.
  quiet = await createTestStore(t.orm, { plan: 'paid' });
  hooked = await createHookedStore(t.orm, receiver.url());
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const PRICES = [19.99, 99999999999.9999, 0.0001];
const threeItems = () => [
  { name: 'Tea', quantity: 3, unit_price: PRICES[0], sku: 'TEA-1' },
  { name: 'Pot', quantity: 1, unit_price: PRICES[1] },
  { name: 'Pin', quantity: 1, unit_price: PRICES[2], variant: 'Gold', image_url: 'https://shop.example/pin.png' },
];
/** The items as every answer and event must show them (written out here, not read from the code). */
const threeShown = [
  {
    name: 'Tea',
    variant: null,
    quantity: 3,
    unit_price: 19.99,
    sku: 'TEA-1',
    product_id: null,
    external_product_id: null,
    image_url: null,
  },
  {
    name: 'Pot',
    variant: null,
    quantity: 1,
    unit_price: 99999999999.9999,
    sku: null,
    product_id: null,
    external_product_id: null,
    image_url: null,
  },
  {
    name: 'Pin',
    variant: 'Gold',
    quantity: 1,
    unit_price: 0.0001,
    sku: null,
    product_id: null,
    external_product_id: null,
    image_url: 'https://shop.example/pin.png',
  },
];

const payloads = (orderId: string) =>
  sql<{ type: string; payload: { items: unknown[]; status: string; updated_at: string } }>(
    t,
    'select type, payload from order_events where order_id = ? order by created_at, id',
    [orderId],
  );

describe('orders.items: line items stored as shown', () => {
  it('stores each price as an exact JSON number, and shows it unchanged', async () => {
    const res = await ordersApi(t, quiet.secret).post(orderBody({ items: threeItems() }));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().order.id;
    const stored = await sql<{ kind: string; price: string }>(
      t,
      `select jsonb_typeof(i->'unit_price') as kind, (i->'unit_price')::text as price from orders, jsonb_array_elements(items) i where id = ?`,
      [id],
    );
    expect(stored).toEqual([
      { kind: 'number', price: '19.99' },
      { kind: 'number', price: '99999999999.9999' },
      { kind: 'number', price: '0.0001' },
    ]);
    const [sum] = await sql<{ total: string }>(
      t,
      `select sum((i->>'unit_price')::numeric)::text as total from orders, jsonb_array_elements(items) i where id = ?`,
      [id],
    );
    expect(sum!.total).toBe('100000000019.9900');
    expect((await ordersApi(t, quiet.secret).get(id)).json().order.items).toEqual(threeShown);
  });

  for (const which of ['quiet', 'hooked'] as const) {
    it(`gives every event of a ${which === 'quiet' ? 'store with nothing to send' : 'store with an endpoint'} the order's items, at creation and at an update`, async () => {
      const store = which === 'quiet' ? quiet : hooked;
      const api = ordersApi(t, store.secret);
      const body = orderBody({ items: threeItems(), payment: { status: 'paid' }, status: 'confirmed' });
      const created = await api.post(body);
      expect(created.statusCode, created.body).toBe(201);
      const order = created.json().order;
      const updated = await api.post({ ...body, status: 'shipped', tracking: { number: 'AWB-1' } });
      expect(updated.json().action).toBe('updated');
      const events = await payloads(order.id);
      expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid', 'order.updated', 'order.fulfilled', 'order.shipped']);
      for (const e of events) expect(e.payload.items).toEqual(threeShown);
      expect(events.map((e) => e.payload.status)).toEqual(['confirmed', 'confirmed', 'shipped', 'shipped', 'shipped']);
      expect(events.at(-1)!.payload).toEqual(updated.json().order);
    });
  }

  it('gives a 200-item order’s events all 200 items, in order', async () => {
    const items = Array.from({ length: 200 }, (_, i) => ({
      name: `Item ${i}`,
      quantity: 1 + (i % 3),
      unit_price: (250 + i) / 100,
      sku: `SKU-${i}`,
    }));
    const res = await ordersApi(t, hooked.secret).post(orderBody({ items }));
    expect(res.statusCode, res.body).toBe(201);
    const [created] = await payloads(res.json().order.id);
    expect(created!.payload.items).toHaveLength(200);
    expect(created!.payload.items[199]).toEqual({
      name: 'Item 199',
      variant: null,
      quantity: 2,
      unit_price: 4.49,
      sku: 'SKU-199',
      product_id: null,
      external_product_id: null,
      image_url: null,
    });
  });

  it('reads a row kept with text prices as before, leaves a re-send of it unchanged, and writes numbers at its next change', async () => {
    const api = ordersApi(t, hooked.secret);
    const body = orderBody({ items: threeItems() });
    const id = (await api.post(body)).json().order.id;
    // As a row written before prices were stored as numbers: the same items, the prices as numeric text.
    await sql(
      t,
      `update orders set items = (select jsonb_agg(i || jsonb_build_object('unit_price', to_char((i->>'unit_price')::numeric, 'FM99999999999990.0000'))) from jsonb_array_elements(items) i) where id = ?`,
      [id],
    );
    const [old] = await sql<{ price: string }>(
      t,
      `select items->0->>'unit_price' as price, jsonb_typeof(items->0->'unit_price') as kind from orders where id = ?`,
      [id],
    );
    expect(old).toEqual({ price: '19.9900', kind: 'string' });
    expect((await api.get(id)).json().order.items).toEqual(threeShown);
    expect((await api.post(body)).json().action).toBe('unchanged');
    const changed = await api.post({ ...body, note: 'ring twice' });
    expect(changed.json().action).toBe('updated');
    const [now] = await sql<{ kind: string }>(t, `select jsonb_typeof(items->0->'unit_price') as kind from orders where id = ?`, [id]);
    expect(now!.kind).toBe('number');
    expect((await payloads(id)).at(-1)!.payload.items).toEqual(threeShown);
  });

  it('fingerprints an input as it always has (the content_hash of rows already stored stays valid)', async () => {
    // The content_hash the service gave this input before prices were stored as numbers (commit 31056d0).
    const body = {
      external_id: `pinned-hash-1`,
      number: '#1001',
      totals: { total: 100000.0099, shipping: 0, discount: 0 },
      currency: 'MAD',
      status: 'pending',
      customer: { name: 'Ali B', phone: '+212612345678', address_line1: 'Rue 1', city: 'Casablanca', country: 'MA' },
      payment: { is_cod: true },
      items: [
        { name: 'Tea', quantity: 3, unit_price: 19.99, sku: 'TEA-1' },
        { name: 'Pot', quantity: 1, unit_price: 99999999999.9999 },
        { name: 'Pin', quantity: 1, unit_price: 0.0001 },
      ],
    };
    const store = await createTestStore(t.orm, { plan: 'paid' });
    const res = await ordersApi(t, store.secret).post(body);
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await sql<{ content_hash: string }>(t, 'select content_hash from orders where id = ?', [res.json().order.id]);
    expect(row!.content_hash).toBe('HCCZVCn9fXgTilQbBvjALoVFuA3bUsCCwBylbinq_vM');
  });
});
