// Shared by the catalogue and checkout tests: products in one line, calls of the catalogue and checkout endpoints.
import type { LightMyRequestResponse } from 'fastify';
import { insertProducts, NewProduct } from '../../services/catalog/create.js';
import type { ProductRow } from '../../db/tables/products.js';
import { bearer, type TestApp } from '../helpers/app.js';

/** Adds products to a store (as the CLI does); each input defaults to a physical product at 10 with unlimited stock. */
export async function addProducts(t: TestApp, storeId: string, inputs: Record<string, unknown>[]): Promise<ProductRow[]> {
  const parsed = inputs.map((input, i) => NewProduct.parse({ name: `Product ${i + 1}`, price: 10, ...input }));
  return insertProducts(t.orm.em.fork(), storeId, parsed);
}

/** One product; see addProducts. */
export async function addProduct(t: TestApp, storeId: string, input: Record<string, unknown> = {}): Promise<ProductRow> {
  const [row] = await addProducts(t, storeId, [input]);
  return row!;
}

/** Runs SQL against the test database (outside any request). */
export function sql<T = Record<string, unknown>>(t: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return t.orm.em.fork().execute<T[]>(query, params);
}

/** A GET or POST of the API with one key (and optional extra headers). */
export function api(t: TestApp, key: string, headers: Record<string, string> = {}) {
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    t.request({
      method,
      url: `/api/v1${url}`,
      headers: { ...bearer(key), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, payload: unknown) => call('POST', url, payload),
    delete: (url: string) => call('DELETE', url),
    checkout: (items: unknown[], extra: Record<string, unknown> = {}) => call('POST', '/checkout/sessions', { items, ...extra }),
  };
}

/** The error envelope's status, code and param. */
export function errorOf(res: LightMyRequestResponse): { status: number; code?: string; param?: string } {
  const body = res.json() as { error?: { code: string; param?: string } };
  return { status: res.statusCode, code: body.error?.code, param: body.error?.param };
}

/** The path of an absolute service URL (inject takes paths). */
export const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** A cart page's form post, as a browser sends it. */
export function postCart(t: TestApp, cartUrl: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: pathOf(cartUrl),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

/** A complete, valid delivery form. */
export const SHOPPER = {
  name: 'Amina Test',
  phone: '+212 612 345 678',
  address: '12 Rue des Fleurs',
  city: 'Casablanca',
  country: 'Morocco',
  note: '',
};
