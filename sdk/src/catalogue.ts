// What a publishable key may do (catalogue, checkout, tracking): shared by the server and the browser clients.
import type { components } from './schema.js';
import { call, type RawClient } from './core.js';
import { pagedList, type PagedList } from './pagination.js';

type Schemas = components['schemas'];

/** Catalogue, checkout and tracking methods over one transport. */
export function catalogue(raw: RawClient) {
  return {
    products: {
      /** GET /products, newest first, every page: `for await (const product of client.products.list())`. */
      list: (filter: { category?: string; limit?: number } = {}): PagedList<Schemas['Product']> =>
        pagedList((cursor) => call(raw.GET('/products', { params: { query: { ...filter, cursor } } }))),
      get: (id: string) => call(raw.GET('/products/{id}', { params: { path: { id } } })).then((r) => r.product),
    },
    categories: () => call(raw.GET('/categories')).then((r) => r.data),
    checkout: {
      /** POST /checkout/sessions: a cart on the service's page; send the shopper to the answer's url. */
      createSession: (body: Schemas['CheckoutSessionRequest']) => call(raw.POST('/checkout/sessions', { body })),
    },
    tracking: {
      /** GET /tracking: an order's progress by its number (and the shopper's contact for outside orders). */
      lookup: (query: { order: string; contact?: string }) => call(raw.GET('/tracking', { params: { query } })),
    },
  };
}
