// The request fuzz's model of the service: every registered route (read from Fastify itself), the ids
// that exist, and a valid request for each route; generators.ts turns those into hostile ones.
import type { FastifyInstance } from 'fastify';
import { ENDPOINTS, type Access, type Endpoint } from '../../api/access.js';

export interface Route {
  method: string;
  /** As registered: /api/v1/orders/:id */
  path: string;
  /** JSON API (error envelope expected) or an HTML page. */
  api: boolean;
  /** The endpoint table's access rule, for API routes. */
  access: Access | null;
  /** A method this path does not have (expects 404 in the envelope for API paths). */
  wrongMethod?: boolean;
}

/** Every route Fastify has, parsed from printRoutes (so routes added later are fuzzed without editing this file). */
export function discoverRoutes(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
    stack[depth] = path;
    if (!m[3] || path === '*') continue;
    for (const method of m[3].split(', ')) {
      const api = path.startsWith('/api/v1/');
      const endpoint = `${method === 'HEAD' ? 'GET' : method} ${path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}` as Endpoint;
      routes.push({ method, path, api, access: api ? ((ENDPOINTS as Record<string, Access>)[endpoint] ?? null) : null });
    }
  }
  return routes;
}

/** Ids and values of the fuzz stores, so most requests name things that exist. */
export interface FuzzContext {
  publicUrl: string;
  orderIds: string[];
  otherOrderIds: string[];
  orderNumbers: string[];
  externalIds: string[];
  productIds: string[];
  otherProductIds: string[];
  categories: string[];
  endpointIds: string[];
  updateIds: string[];
  externalProductIds: string[];
  slugs: string[];
  cartTokens: string[];
  storeIds: string[];
  keyIds: string[];
  connectionIds: string[];
  deliveryIds: string[];
  connectCodes: string[];
  connectedSite: string;
  cursor: string;
  /** A receiver-less loopback URL: the fuzz app runs without a worker, so nothing is ever sent to it. */
  hookUrl: string;
  dashboard: { sessionCookie: string; csrf: string } | null;
}

export type KeyKind = 'secret' | 'publishable' | 'connection' | 'other' | 'revoked' | 'none';
export type AuthForm =
  | 'bearer'
  | 'x-api-key'
  | 'bearer-lower'
  | 'bearer-upper'
  | 'bearer-spaces'
  | 'no-scheme'
  | 'bearer-only'
  | 'bearer-empty'
  | 'basic'
  | 'duplicate'
  | 'both-different'
  | 'long'
  | 'trailing-garbage'
  | 'tab'
  | 'x-api-key-empty'
  | 'in-query';

/** One generated request; keys are filled in at send time (fresh ones per batch, so the rate limit is not all we test). */
export interface RequestSpec {
  route: string;
  method: string;
  url: string;
  api: boolean;
  auth: { kind: KeyKind; form: AuthForm };
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
  /** What the body was, for the failure report. */
  bodyNote: string;
}

export function validKinds(access: Access | null): KeyKind[] {
  switch (access?.keys) {
    case 'any':
      return ['secret', 'publishable', 'connection'];
    case 'secret':
      return ['secret', 'secret', 'connection'];
    case 'secret_or_publishable':
      return ['secret', 'publishable'];
    case 'connection':
      return ['connection'];
    default:
      return ['none'];
  }
}

/** The ids of things that exist for a path parameter, by its name and route. */
export function poolFor(name: string, path: string, ctx: FuzzContext): string[] {
  if (name === 'slug') return path.includes('/cart/') ? [ctx.slugs[0]!, ctx.slugs[0]!, ctx.slugs[0]!, ...ctx.slugs] : ctx.slugs;
  if (name === 'token') return ctx.cartTokens;
  if (name === 'storeId') return ctx.storeIds;
  if (name === 'keyId') return ctx.keyIds;
  if (name === 'endpointId') return ctx.endpointIds;
  if (name === 'deliveryId') return ctx.deliveryIds;
  if (name === 'connectionId') return ctx.connectionIds;
  if (name === 'platform') return ['platform_a', 'platform_b'];
  if (name === 'external_id') return ctx.externalProductIds;
  if (path.includes('/products/')) return ctx.productIds;
  if (path.includes('/webhooks/')) return ctx.endpointIds;
  return ctx.orderIds;
}

/** Query parameters each GET route understands, with values that are valid. */
export function knownQuery(route: Route, ctx: FuzzContext): Record<string, string[]> {
  const iso = ['2026-01-01T00:00:00Z', '2020-02-29T12:00:00.000+02:00', new Date().toISOString()];
  const p = route.path;
  if (p === '/api/v1/orders')
    return {
      limit: ['1', '25', '100'],
      cursor: [ctx.cursor],
      status: ['pending', 'confirmed', 'shipped', 'cancelled'],
      source: ['api', 'native', 'platform_a'],
      external_id: ctx.externalIds,
      updated_since: iso,
      created_since: iso,
      include_archived: ['true'],
    };
  if (p === '/api/v1/products') return { limit: ['1', '50'], cursor: [ctx.cursor], category: ctx.categories };
  if (p === '/api/v1/tracking') return { order: ctx.orderNumbers, contact: ['5678', 'buyer@example.com', '0000'] };
  if (p === '/api/v1/connection/updates') return { limit: ['1', '50', '200'] };
  if (p === '/s/:slug') return { cursor: [ctx.cursor] };
  if (p === '/s/:slug/track') return { order: ctx.orderNumbers };
  if (p.startsWith('/connect/'))
    return {
      site_url: [ctx.connectedSite, 'https://new-shop.example'],
      return_url: [`${ctx.connectedSite}/wp-admin/x`],
      state: ['abc123'],
      name: ['Shop'],
      currency: ['USD'],
      v: ['1.2.3'],
    };
  if (p.startsWith('/dashboard'))
    return {
      next: ['/dashboard', 'https://evil.example', '//evil.example'],
      store: ctx.storeIds,
      done: ['created', 'revoked'],
      status: ['pending'],
      cursor: [ctx.cursor],
      limit: ['10'],
    };
  return {};
}

/** A valid JSON body for each API route that takes one. */
export function jsonTemplate(route: Route, ctx: FuzzContext, n: number): Record<string, unknown> | null {
  const order = () => ({
    external_id: ctx.externalIds[n % ctx.externalIds.length],
    number: `F-${n % 40}`,
    status: 'confirmed',
    status_kind: 'service',
    currency: 'USD',
    totals: { total: 30.5, shipping: 5, discount: 0, cod_fee: 1, tax: 0.5 },
    payment: { status: 'unpaid', method: 'cod', method_title: 'Cash on delivery', is_cod: true },
    customer: {
      name: 'Fuzz Buyer',
      email: 'buyer@example.com',
      phone: '+212612345678',
      address_line1: '1 Rue',
      city: 'Rabat',
      country: 'MA',
    },
    items: [
      { name: 'Tea', sku: 'T-1', quantity: 2, unit_price: 12.25, external_product_id: 'p-1', image_url: 'https://img.example/t.png' },
    ],
    tracking: { number: 'AWB1', courier: 'DHL', url: 'https://track.example/AWB1' },
    note: 'leave at the door',
    created_at: '2026-11-01T10:00:00Z',
    updated_at: new Date(Date.UTC(2026, 10, 1, 10, n % 60)).toISOString(),
  });
  switch (`${route.method} ${route.path}`) {
    case 'POST /api/v1/orders':
      return order();
    case 'POST /api/v1/orders/batch':
      return { orders: [order(), { ...order(), external_id: ctx.externalIds[(n + 1) % ctx.externalIds.length] }], backfill: n % 2 === 0 };
    case 'PATCH /api/v1/orders/:id':
      return { status: 'shipped', tracking: { number: `AWB-${n}`, courier: 'DHL', url: 'https://track.example/x' }, comment: 'on its way' };
    case 'POST /api/v1/external-products/batch':
      return {
        products: [
          {
            external_id: ctx.externalProductIds[n % ctx.externalProductIds.length],
            name: 'Outside thing',
            sku: 'X',
            currency: 'USD',
            category: 'C',
            description: '<b>d</b>',
            status: 'publish',
            price: 9.99,
            stock: 3,
            image_url: 'https://img.example/a.png',
            url: 'https://shop.example/p',
            images: ['https://img.example/b.png'],
            updated_at: '2026-11-01T10:00:00Z',
          },
        ],
      };
    case 'POST /api/v1/checkout/sessions':
      return { items: [{ product_id: ctx.productIds[n % ctx.productIds.length], quantity: 1 }], return_url: 'https://shop.example/thanks' };
    case 'POST /api/v1/webhooks':
      return { url: `${ctx.hookUrl}/${n}`, events: ['order.created', 'order.shipped'] };
    case 'POST /api/v1/connect/exchange':
      return { code: ctx.connectCodes[n % ctx.connectCodes.length], site_url: 'https://code-shop.example' };
    case 'PUT /api/v1/connection':
      return {
        plugin_version: '1.0.0',
        platform_version: '9.1',
        shop_name: 'Fuzz shop',
        currency: 'USD',
        site_url: ctx.connectedSite,
        push_url: n % 2 ? null : `${ctx.hookUrl}/push`,
      };
    case 'POST /api/v1/connection/updates/ack':
      return {
        applied: [ctx.updateIds[n % ctx.updateIds.length]],
        failed: [{ id: ctx.updateIds[(n + 1) % ctx.updateIds.length], error: 'order locked' }],
      };
    default:
      return null;
  }
}

/** A valid form for each page that takes a POST (and a general one for pages added later). */
export function formTemplate(route: Route, ctx: FuzzContext): Record<string, string> {
  const csrf: Record<string, string> = ctx.dashboard ? { _csrf: ctx.dashboard.csrf } : {};
  const p = route.path;
  if (p === '/track/:orderId') return { contact: '5678' };
  if (p === '/s/:slug/track') return { order: ctx.orderNumbers[0]!, contact: '5678' };
  if (p === '/s/:slug/cart/:token')
    return {
      name: 'Amina',
      phone: '+212 612 345 678',
      address: '12 Rue des Fleurs',
      city: 'Casablanca',
      country: 'Morocco',
      note: '',
      expected_total: '10.00',
    };
  if (p.endsWith('sign-in') || p.endsWith('sign-up'))
    return { email: 'fuzz@example.com', password: 'not the password', next: '/dashboard', ...csrf };
  if (p.startsWith('/connect/'))
    return {
      site_url: ctx.connectedSite,
      return_url: `${ctx.connectedSite}/wp-admin`,
      state: 'abc',
      name: 'Shop',
      store: ctx.storeIds[0]!,
      ...csrf,
    };
  return {
    name: 'Fuzz',
    currency: 'USD',
    kind: 'secret',
    scopes: 'orders:read',
    label: 'k',
    url: `${ctx.hookUrl}/dash`,
    events: '*',
    platform: 'platform_a',
    site_url: 'https://dash-shop.example',
    status: 'shipped',
    comment: 'c',
    tracking_number: 'T',
    published: 'on',
    standard_delivery_fee: '5',
    ...csrf,
  };
}

/** Every path (as a list of keys) inside a JSON template, for mutations to aim at. */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

/** The Authorization / X-Api-Key headers (or query) of one auth form for a key. */
export function authHeaders(
  form: AuthForm,
  key: string | null,
  otherKey: string,
): { headers: Record<string, string | string[]>; query?: string } {
  if (key === null) return { headers: {} };
  switch (form) {
    case 'bearer':
      return { headers: { authorization: `Bearer ${key}` } };
    case 'x-api-key':
      return { headers: { 'x-api-key': key } };
    case 'bearer-lower':
      return { headers: { authorization: `bearer ${key}` } };
    case 'bearer-upper':
      return { headers: { authorization: `BEARER ${key}` } };
    case 'bearer-spaces':
      return { headers: { authorization: `  Bearer    ${key}   ` } };
    case 'no-scheme':
      return { headers: { authorization: key } };
    case 'bearer-only':
      return { headers: { authorization: 'Bearer' } };
    case 'bearer-empty':
      return { headers: { authorization: 'Bearer ' } };
    case 'basic':
      return { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } };
    case 'duplicate':
      return { headers: { authorization: [`Bearer ${key}`, `Bearer ${otherKey}`] } };
    case 'both-different':
      return { headers: { authorization: `Bearer ${key}`, 'x-api-key': otherKey } };
    case 'long':
      return { headers: { authorization: `Bearer ${key}${'0'.repeat(20_000)}` } };
    case 'trailing-garbage':
      return { headers: { authorization: `Bearer ${key} and more` } };
    case 'tab':
      return { headers: { authorization: `Bearer\t${key}\t` } };
    case 'x-api-key-empty':
      return { headers: { 'x-api-key': '' } };
    case 'in-query':
      return { headers: {}, query: `api_key=${key}` };
  }
}
