// The quick reader of order inputs (contract/schemas/order-input-quick.ts) against the schema it stands in
// for: wherever it reads an input, OrderInput.safeParse must accept that input and give the same value,
// keys and their order included; and it must read the plain inputs plugins send, or it saves nothing.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OrderInput } from '../../contract/schemas/orders.js';
import { ORDER_FIELDS, parseOrderInput, quickOrderInput } from '../../contract/schemas/order-input-quick.js';
import { orderInput, seededRandom } from '../../bench/lib/order-bodies.js';

const ABSENT = Symbol('absent');
const PRESENT_UNDEFINED = Symbol('present, undefined');

/** Values tried in every field: edges of each limit the schema uses, wrong types, and the values some fields want. */
const EDGES: unknown[] = [
  ABSENT,
  PRESENT_UNDEFINED,
  null,
  '',
  '   ',
  'Blue shirt',
  ' 1042 ',
  '<b>bold</b> &amp; more',
  'naïve 😀 \u0000',
  ...[3, 64, 255, 500, 1000, 2000, 10_000].flatMap((n) => ['x'.repeat(n), 'x'.repeat(n + 1)]),
  ...[0, -0, 7, -1, 1.5, 9.99, 0.1234, 0.12345, 1e-7, 1_000_000, 1_000_001, 99_999_999_999.9999, 1e11, 2 ** 53 - 1, 2 ** 53],
  Number.NaN,
  Infinity,
  true,
  false,
  {},
  [],
  ['a'],
  { total: 5 },
  'USD',
  'usd',
  'US',
  'U$D',
  'platform_a',
  'service',
  'paid',
  'partially_refunded',
  'confirmed',
  '2026-11-22T10:15:00.000Z',
  '2026-11-22T10:15:00+02:00',
  '2026-11-22',
  '0000-12-31T23:00:00Z',
  'https://cdn.example/p/1.jpg',
  'HTTP://CDN.EXAMPLE/A.JPG',
  ' https://cdn.example/lead.jpg',
  '\thttps://cdn.example/tab.jpg',
  'javascript:alert(1)',
  'ftp://files.example/a.jpg',
  'http://999.1/a.jpg',
  'http://',
  '//cdn.example/relative.jpg',
];

/** A plain item, as plugins send them: every field within its limits, some absent or null. */
function plainItem(random: () => number, i: number): Record<string, unknown> {
  const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)]!;
  const item: Record<string, unknown> = {
    external_product_id: pick([`p-${i}`, i, null]),
    name: pick([`Product ${i}`, 'Tee – “Ocean” 😀', null]),
    sku: pick([`SKU-${i}`, null]),
    variant: pick(['Size M', '']),
    image_url: pick([`https://cdn.example/p/${i}.jpg`, 'javascript:alert(1)', null]),
    quantity: pick([1, 3, 0.5]),
    unit_price: pick([9.99, 0, 1234.5678, 12]),
  };
  for (const key of Object.keys(item)) if (random() < 0.15) delete item[key];
  return item;
}

/** An order with every field of OrderInput set to a plain value (the bench's order and what it leaves out). */
function fullOrder(random: () => number, id: string, items: number): Record<string, unknown> {
  const order: Record<string, any> = orderInput(id, 0, 'a note');
  order.items = Array.from({ length: items }, (_, i) => plainItem(random, i));
  order.status_kind = 'service';
  order.totals.cod_fee = 0;
  order.totals.tax = 1.5;
  order.payment.refunded_amount = 0;
  order.customer.address_line2 = 'Floor 2';
  order.customer.state = 'IL';
  order.tracking = { number: 'TRK1', courier: 'Courier', url: 'https://track.example/TRK1' };
  order.created_at = '2026-11-22T10:15:00.000Z';
  order.updated_at = '2026-11-22T11:15:00Z';
  order.admin_url = 'https://shop.example/admin/1';
  order.deleted = false;
  order.test = false;
  order.delivered = false;
  return order;
}

/** Every path to a field of an input like fullOrder's: each key, and the keys of its objects and items. */
function fieldPaths(order: Record<string, unknown>): [Record<string, unknown>, string][] {
  const paths: [Record<string, unknown>, string][] = [];
  for (const [key, value] of Object.entries(order)) {
    paths.push([order, key]);
    const children = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
    for (const child of children) for (const k of Object.keys(child as object)) paths.push([child as Record<string, unknown>, k]);
  }
  return paths;
}

/** A full order with some fields (top-level or nested) set to edge values, now and then an item that is no object. */
function randomInput(random: () => number, n: number): unknown {
  const order = fullOrder(random, `q-${n}`, 1 + Math.floor(random() * 2));
  const paths = fieldPaths(order);
  const changes = 1 + Math.floor(random() * 2);
  for (let c = 0; c < changes; c++) {
    const [holder, key] = paths[Math.floor(random() * paths.length)]!;
    const value = EDGES[Math.floor(random() * EDGES.length)];
    if (value === ABSENT) delete holder[key];
    else holder[key] = value === PRESENT_UNDEFINED ? undefined : value;
  }
  if (random() < 0.03 && Array.isArray(order.items)) order.items.push([null, [], 'item', 5][Math.floor(random() * 4)]);
  if (random() < 0.03) order.extra = { unknown: 'dropped' };
  return order;
}

/** Own keys, in order, at every level: toStrictEqual checks values and undefined keys, not their order. */
function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, keyOrder(v)]);
  return typeof value;
}

function expectSameAsSchema(input: unknown) {
  const quick = quickOrderInput(input);
  if (quick === undefined) return false;
  const bySchema = OrderInput.safeParse(input);
  expect(bySchema.success, JSON.stringify(input)).toBe(true);
  expect(quick).toStrictEqual(bySchema.data);
  expect(keyOrder(quick)).toEqual(keyOrder(bySchema.data));
  return true;
}

describe('quickOrderInput', () => {
  it('reads only what OrderInput accepts, as OrderInput reads it, over 30,000 inputs with edge values in every field', () => {
    const random = seededRandom(7);
    let read = 0;
    let refusedBySchema = 0;
    for (let n = 0; n < 30_000; n++) {
      const input = randomInput(random, n);
      if (expectSameAsSchema(input)) read++;
      else if (!OrderInput.safeParse(input).success) refusedBySchema++;
    }
    // Both sides are exercised: many inputs read quickly, many refused by the schema (and left to it).
    expect(read).toBeGreaterThan(5_000);
    expect(refusedBySchema).toBeGreaterThan(5_000);
  });

  it('reads every plain input, from one item to 10,000, as OrderInput does', () => {
    const random = seededRandom(11);
    for (const count of [1, 3, 20, 200, 201, 10_000]) {
      expect(expectSameAsSchema(fullOrder(random, `plain-${count}`, count)), `${count} items`).toBe(true);
    }
    expect(expectSameAsSchema(orderInput('bench-shaped', 200, null))).toBe(true);
    expect(expectSameAsSchema({ external_id: 7, totals: { total: 0 } })).toBe(true);
  });

  it('leaves to the schema what it does not read: items null or too many, a missing total, no object', () => {
    const tooMany: Record<string, unknown> = orderInput('too-many', 0, null);
    tooMany.items = Array.from({ length: 10_001 }, () => ({}));
    const noTotal: Record<string, unknown> = orderInput('no-total', 3, null);
    delete noTotal.totals;
    for (const input of [{ ...orderInput('null-items', 0, null), items: null }, tooMany, noTotal, null, 'order', []])
      expect(quickOrderInput(input)).toBeUndefined();
    // parseOrderInput then gives the schema's own error.
    const parsed = parseOrderInput(tooMany);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['items']);
  });

  it('knows every field of OrderInput, of its objects and of its items, in the schema’s order', () => {
    /** The object a field's schema holds, through optional, default and prefault; its element for an array. */
    const objectOf = (schema: z.ZodType): z.ZodObject | null => {
      let s: any = schema;
      while (s && !(s instanceof z.ZodObject)) s = s instanceof z.ZodArray ? s.element : typeof s.unwrap === 'function' ? s.unwrap() : null;
      return s;
    };
    const compare = (schema: z.ZodObject, fields: Record<string, { read: any }>, at: string) => {
      expect(Object.keys(fields), at).toEqual(Object.keys(schema.shape));
      for (const [key, child] of Object.entries(schema.shape)) {
        const inner = objectOf(child as z.ZodType);
        const read = fields[key]!.read;
        const nested = read.fields ?? read.element?.fields;
        if (inner) compare(inner, nested, `${at}.${key}`);
        else expect(nested, `${at}.${key}`).toBeUndefined();
      }
    };
    compare(OrderInput, ORDER_FIELDS, 'OrderInput');
  });
});
