// Shared by the order tests: an order input builder and one-line calls of the order endpoints.
import type { LightMyRequestResponse } from 'fastify';
import { bearer, type TestApp } from '../helpers/app.js';

let seq = 0;

/** A unique external id for this test process. */
export const nextExternalId = (prefix = 'ext') => `${prefix}-${process.pid}-${++seq}`;

/** A complete, valid order input; overrides replace top-level fields. */
export function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: nextExternalId(),
    number: `#${1000 + seq}`,
    totals: { total: 59.97, shipping: 0, discount: 0 },
    currency: 'MAD',
    status: 'pending',
    customer: { name: 'Ali B', phone: '+212612345678', address_line1: 'Rue 1', city: 'Casablanca', country: 'MA' },
    payment: { is_cod: false, method: 'stripe', method_title: 'Credit card' },
    items: [{ name: 'Tea', quantity: 3, unit_price: 19.99, sku: 'TEA-1' }],
    ...overrides,
  };
}

/** Calls of the order endpoints with one key, through inject(). */
export function ordersApi(t: TestApp, key: string) {
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    t.request({ method, url: `/api/v1${url}`, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  return {
    post: (body: unknown) => call('POST', '/orders', body),
    batch: (orders: unknown[], backfill?: boolean) =>
      call('POST', '/orders/batch', backfill === undefined ? { orders } : { orders, backfill }),
    list: (query = '') => call('GET', `/orders${query ? `?${query}` : ''}`),
    get: (id: string) => call('GET', `/orders/${id}`),
    patch: (id: string, body: unknown) => call('PATCH', `/orders/${id}`, body),
    archive: (id: string) => call('DELETE', `/orders/${id}`),
  };
}

/** Runs SQL against the test database (outside any request). */
export function sql<T = Record<string, unknown>>(t: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return t.orm.em.fork().execute<T[]>(query, params);
}

/** Event types of an order, oldest first. */
export async function eventTypes(t: TestApp, orderId: string): Promise<string[]> {
  const rows = await sql<{ type: string }>(t, 'select type from order_events where order_id = ? order by created_at, id', [orderId]);
  return rows.map((r) => r.type);
}

/** How many order_events rows an order has. */
export async function eventCount(t: TestApp, orderId: string): Promise<number> {
  const [row] = await sql<{ n: number }>(t, 'select count(*)::int as n from order_events where order_id = ?', [orderId]);
  return row!.n;
}

/** How many orders rows a store holds (archived included). */
export async function orderCount(t: TestApp, storeId: string, where = 'true', params: unknown[] = []): Promise<number> {
  const [row] = await sql<{ n: number }>(t, `select count(*)::int as n from orders where store_id = ? and ${where}`, [storeId, ...params]);
  return row!.n;
}

/** The error envelope's code and param of a response. */
export function errorOf(res: LightMyRequestResponse): { status: number; code?: string; param?: string } {
  const body = res.json() as { error?: { code: string; param?: string } };
  return { status: res.statusCode, code: body.error?.code, param: body.error?.param };
}
