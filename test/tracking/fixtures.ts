// Shared by the tracking tests: a store with an api key and a platform_a connection, orders, one-line lookups.
import type { LightMyRequestResponse } from 'fastify';
import { bearer, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

/** A shopper whose every detail must stay out of tracking answers. The phone ends in 8395. */
export const SHOPPER = {
  name: 'Zubayr Quillfeather',
  email: 'Zubayr.Q@Mail.Example',
  phone: '+212 661-40-8395',
  phoneDigits: '212661408395',
  last4: '8395',
  address_line1: '17 Rue Tafilalet Appartement',
  address_line2: 'Etage Quatrieme',
  city: 'Ouarzazate',
  state: 'Souss Zephyria',
  postcode: 'KX7 4QW',
};

export interface TrackingStore extends TestStore {
  /** A platform_a connection key: its orders have source platform_a. */
  connection: string;
}

let seq = 0;
/** A unique order number for this process; never contains the shopper's last 4 digits. */
export const nextNumber = (prefix = 'T') => `${prefix}${process.pid % 1000}-${++seq}`;

/** A store (paid plan: 300 lookups a minute per secret key), its keys and a platform_a connection. */
export async function trackingStore(t: TestApp, name?: string): Promise<TrackingStore> {
  const s = await createTestStore(t.orm, { plan: 'paid', ...(name ? { name } : {}) });
  const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
  return { ...s, connection: conn.key };
}

/** Creates an order with the given key (secret: source api; connection: platform_a) and returns its id. */
export async function createOrder(t: TestApp, key: string, number: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(key),
    payload: {
      external_id: `x-${number}-${++seq}`,
      number,
      totals: { total: 59.97, shipping: 7, cod_fee: 0 },
      currency: 'MAD',
      status: 'pending',
      customer: {
        name: SHOPPER.name,
        email: SHOPPER.email,
        phone: SHOPPER.phone,
        address_line1: SHOPPER.address_line1,
        address_line2: SHOPPER.address_line2,
        city: SHOPPER.city,
        state: SHOPPER.state,
        postcode: SHOPPER.postcode,
        country: 'MA',
      },
      items: [{ name: 'Mint tea', variant: 'Large tin', quantity: 3, unit_price: 17.99, image_url: 'https://img.example/tea.png' }],
      ...overrides,
    },
  });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.statusCode} ${res.body}`);
  return res.json().order.id;
}

/** GET /tracking with a key; `ip` stands for the visitor (a fresh one unless given). */
export function track(
  t: TestApp,
  key: string,
  query: Record<string, string>,
  extra: { ip?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'GET',
    url: `/api/v1/tracking?${new URLSearchParams(query)}`,
    headers: { ...bearer(key), ...extra.headers },
    remoteAddress: extra.ip ?? randomLoopbackIp(),
  });
}

/** POSTs a tracking page form, as a browser does. */
export function postForm(
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  ip = randomLoopbackIp(),
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: ip,
  });
}

/** Runs SQL against the test database. */
export function sql<T = Record<string, unknown>>(t: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return t.orm.em.fork().execute<T[]>(query, params);
}

/** The lockout row of an order number, or undefined. */
export async function lockoutRow(t: TestApp, storeId: string, orderKey: string) {
  const [row] = await sql<{ wrong_count: number; locked_until: Date | null }>(
    t,
    'select wrong_count, locked_until from tracking_lockouts where store_id = ? and order_key = ?',
    [storeId, orderKey],
  );
  return row;
}
