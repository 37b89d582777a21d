// What a publishable key may do (catalogue, checkout, tracking): shared by the server and the browser clients.
import type { components } from './schema.js';
import { call, type CallOptions, type RawClient } from './core.js';
import { pagedList, type PagedList } from './pagination.js';

type Schemas = components['schemas'];

/** Catalogue, checkout and tracking methods over one transport; each takes `{signal}` last. */
export function catalogue(raw: RawClient) {
  return {
    products: {
      /** GET /products, newest first, every page: `for await (const product of client.products.list())`. */
      list: (filter: { category?: string; limit?: number } = {}, o: CallOptions = {}): PagedList<Schemas['Product']> =>
        pagedList((cursor) => call(raw.GET('/products', { params: { query: { ...filter, cursor } }, ...o }))),
      get: (id: string, o: CallOptions = {}) => call(raw.GET('/products/{id}', { params: { path: { id } }, ...o })).then((r) => r.product),
    },
    categories: (o: CallOptions = {}) => call(raw.GET('/categories', { ...o })).then((r) => r.data),
    checkout: {
      /** POST /checkout/sessions: a cart on the service's page; send the shopper to the answer's url. Not retried after a network error. */
      createSession: (body: Schemas['CheckoutSessionRequest'], o: CallOptions = {}) => call(raw.POST('/checkout/sessions', { body, ...o })),
    },
    tracking: {
      /** GET /tracking: an order's progress by its number (and the shopper's contact for outside orders). */
      lookup: (query: { order: string; contact?: string }, o: CallOptions = {}) => call(raw.GET('/tracking', { params: { query }, ...o })),
    },
  };
}
