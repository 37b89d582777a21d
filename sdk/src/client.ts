// The server-side client: every operation of the API as a typed method, lists as async iterables.
import type { components, paths } from './schema.js';
import { call, createTransport, type RawClient, type TransportOptions } from './core.js';
import { pagedList, type PagedList } from './pagination.js';
import { catalogue } from './catalogue.js';

type Schemas = components['schemas'];
type QueryOf<P extends keyof paths> = NonNullable<paths[P]['get'] extends { parameters: { query?: infer Q } } ? Q : never>;
export type OrderListFilter = Omit<QueryOf<'/orders'>, 'cursor'>;

/** A client for a secret, legacy or connection key (servers and plugins; never ship such a key to a browser). */
export function createStoreCommerceClient(options: TransportOptions) {
  const raw = createTransport(options);
  return {
    /** The typed openapi-fetch client, for anything the methods below do not cover. */
    raw,
    /** GET /me: the store and key behind the client's key. */
    me: () => call(raw.GET('/me')),
    ...catalogue(raw),
    orders: orders(raw),
    webhooks: {
      list: () => call(raw.GET('/webhooks')),
      create: (body: Schemas['WebhookCreate']) => call(raw.POST('/webhooks', { body })),
      delete: (id: string) => call(raw.DELETE('/webhooks/{id}', { params: { path: { id } } })),
    },
    externalProducts: {
      upsertBatch: (products: Schemas['ExternalProductInput'][]) => call(raw.POST('/external-products/batch', { body: { products } })),
      delete: (externalId: string) =>
        call(raw.DELETE('/external-products/{external_id}', { params: { path: { external_id: externalId } } })),
    },
    connection: connection(raw),
    /** GET /openapi.json: the document this client was generated from, as the service serves it now. */
    openapi: () => call(raw.GET('/openapi.json')),
  };
}
export type StoreCommerceClient = ReturnType<typeof createStoreCommerceClient>;

function orders(raw: RawClient) {
  return {
    /** GET /orders, newest first: `for await (const order of client.orders.list({status: 'pending'}))` walks every page. */
    list: (filter: OrderListFilter = {}): PagedList<Schemas['Order']> =>
      pagedList((cursor) => call(raw.GET('/orders', { params: { query: { ...filter, cursor } } }))),
    get: (id: string) => call(raw.GET('/orders/{id}', { params: { path: { id } } })).then((r) => r.order),
    /** POST /orders: creates, or updates the order with the same external_id (safe to retry). */
    upsert: (body: Schemas['OrderInput']) => call(raw.POST('/orders', { body })),
    /** POST /orders/batch: 1 to 50 orders, each answered in its own result. */
    batch: (orders: Schemas['OrderInput'][], options: { backfill?: boolean } = {}) =>
      call(raw.POST('/orders/batch', { body: { orders, backfill: options.backfill ?? false } })),
    update: (id: string, patch: Schemas['OrderPatch']) =>
      call(raw.PATCH('/orders/{id}', { params: { path: { id } }, body: patch })).then((r) => r.order),
    archive: (id: string) => call(raw.DELETE('/orders/{id}', { params: { path: { id } } })),
  };
}

function connection(raw: RawClient) {
  return {
    /** POST /connect/exchange (no key needed): the code from the connect page for the connection key and signing secret. */
    exchange: (body: Schemas['ConnectExchange']) => call(raw.POST('/connect/exchange', { body })),
    get: () => call(raw.GET('/connection')),
    /** PUT /connection: the plugin's heartbeat; a site_url on another host is a 409 conflict (the plugin must pause). */
    heartbeat: (body: Schemas['ConnectionHeartbeat']) => call(raw.PUT('/connection', { body })),
    disconnect: () => call(raw.POST('/connect/disconnect')),
    updates: {
      /** GET /connection/updates: the updates waiting for acknowledgement. */
      pull: (query: { limit?: number } = {}) => call(raw.GET('/connection/updates', { params: { query } })).then((r) => r.updates),
      /** POST /connection/updates/ack: applied ids and failed ones with their error. */
      ack: (body: { applied?: string[]; failed?: { id: string; error: string }[] }) =>
        call(raw.POST('/connection/updates/ack', { body: { applied: body.applied ?? [], failed: body.failed ?? [] } })),
    },
  };
}
