// The server-side client: every operation of the API as a typed method, lists as async iterables.
import type { components, paths } from './schema.js';
import { call, createTransport, type CallOptions, type RawClient, type TransportOptions } from './core.js';
import { pagedList, type PagedList } from './pagination.js';
import { catalogue } from './catalogue.js';

type Schemas = components['schemas'];
type QueryOf<P extends keyof paths> = NonNullable<paths[P]['get'] extends { parameters: { query?: infer Q } } ? Q : never>;
export type OrderListFilter = Omit<QueryOf<'/orders'>, 'cursor'>;

/**
 * A client for a secret, legacy or connection key (servers and plugins; never ship such a key to a browser).
 * Every method takes `{signal}` as its last argument.
 */
export function createStoreCommerceClient(options: TransportOptions) {
  const raw = createTransport(options);
  return {
    /** The typed openapi-fetch client, for anything the methods below do not cover. */
    raw,
    /** GET /me: the store and key behind the client's key. */
    me: (o: CallOptions = {}) => call(raw.GET('/me', { ...o })),
    ...catalogue(raw),
    orders: orders(raw),
    webhooks: {
      list: (o: CallOptions = {}) => call(raw.GET('/webhooks', { ...o })),
      create: (body: Schemas['WebhookCreate'], o: CallOptions = {}) => call(raw.POST('/webhooks', { body, ...o })),
      delete: (id: string, o: CallOptions = {}) => call(raw.DELETE('/webhooks/{id}', { params: { path: { id } }, ...o })),
    },
    externalProducts: {
      upsertBatch: (products: Schemas['ExternalProductInput'][], o: CallOptions = {}) =>
        call(raw.POST('/external-products/batch', { body: { products }, ...o })),
      delete: (externalId: string, o: CallOptions = {}) =>
        call(raw.DELETE('/external-products/{external_id}', { params: { path: { external_id: externalId } }, ...o })),
    },
    connection: connection(raw),
    /** GET /openapi.json: the document this client was generated from, as the service serves it now. */
    openapi: (o: CallOptions = {}) => call(raw.GET('/openapi.json', { ...o })),
  };
}
export type StoreCommerceClient = ReturnType<typeof createStoreCommerceClient>;

function orders(raw: RawClient) {
  return {
    /** GET /orders, newest first: `for await (const order of client.orders.list({status: 'pending'}))` walks every page. */
    list: (filter: OrderListFilter = {}, o: CallOptions = {}): PagedList<Schemas['Order']> =>
      pagedList((cursor) => call(raw.GET('/orders', { params: { query: { ...filter, cursor } }, ...o }))),
    get: (id: string, o: CallOptions = {}) => call(raw.GET('/orders/{id}', { params: { path: { id } }, ...o })).then((r) => r.order),
    /** POST /orders: creates, or updates the order with the same external_id (safe to retry: retried after a network error). */
    upsert: (body: Schemas['OrderInput'], o: CallOptions = {}) => call(raw.POST('/orders', { body, ...o })),
    /** POST /orders/batch: 1 to 50 orders, each answered in its own result. */
    batch: (orders: Schemas['OrderInput'][], options: { backfill?: boolean } & CallOptions = {}) =>
      call(raw.POST('/orders/batch', { body: { orders, backfill: options.backfill ?? false }, signal: options.signal })),
    /** PATCH /orders/{id}: not retried after a network error (a status change may have been made). */
    update: (id: string, patch: Schemas['OrderPatch'], o: CallOptions = {}) =>
      call(raw.PATCH('/orders/{id}', { params: { path: { id } }, body: patch, ...o })).then((r) => r.order),
    archive: (id: string, o: CallOptions = {}) => call(raw.DELETE('/orders/{id}', { params: { path: { id } }, ...o })),
  };
}

function connection(raw: RawClient) {
  return {
    /** POST /connect/exchange (no key needed): the code from the connect page for the connection key and signing secret. */
    exchange: (body: Schemas['ConnectExchange'], o: CallOptions = {}) => call(raw.POST('/connect/exchange', { body, ...o })),
    get: (o: CallOptions = {}) => call(raw.GET('/connection', { ...o })),
    /** PUT /connection: the plugin's heartbeat; a site_url on another host is a 409 conflict (the plugin must pause). */
    heartbeat: (body: Schemas['ConnectionHeartbeat'], o: CallOptions = {}) => call(raw.PUT('/connection', { body, ...o })),
    disconnect: (o: CallOptions = {}) => call(raw.POST('/connect/disconnect', { ...o })),
    updates: {
      /** GET /connection/updates: the updates waiting for acknowledgement. */
      pull: (query: { limit?: number } = {}, o: CallOptions = {}) =>
        call(raw.GET('/connection/updates', { params: { query }, ...o })).then((r) => r.updates),
      /** POST /connection/updates/ack: applied ids and failed ones with their error. */
      ack: (body: { applied?: string[]; failed?: { id: string; error: string }[] }, o: CallOptions = {}) =>
        call(raw.POST('/connection/updates/ack', { body: { applied: body.applied ?? [], failed: body.failed ?? [] }, ...o })),
    },
  };
}
