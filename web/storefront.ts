import type { FastifyInstance } from 'fastify';
import { decodeCursor } from '../domain/cursor.js';
import { presentProduct } from '../services/catalog/product-row.js';
import { findLiveProduct, findStore, listProducts } from '../services/catalog/read.js';
import { storeUrls } from '../contract/urls.js';
import { sendPage, useHtmlErrors } from './format.js';
import { renderClosed } from './cart-views.js';
import { renderProduct, renderStorefront } from './storefront-views.js';

const unmetered = { config: { unmetered: true } };
const PAGE_SIZE = 48;

/** The storefront of a published store: {PUBLIC_URL}/s/{slug} lists its live products, /s/{slug}/products/{id} shows one. */
export async function storefrontPages(app: FastifyInstance) {
  const publicUrl = app.config.publicUrl;
  useHtmlErrors(app);
  const closed = () => renderClosed(null, 'Shop not found', 'There is no open shop at this address.');

  app.get<{ Params: { slug: string }; Querystring: { cursor?: string } }>('/s/:slug', unmetered, async (request, reply) => {
    const store = await findStore(app.orm.em, { slug: request.params.slug });
    if (!store?.published) return sendPage(reply, 404, closed());
    const cursor = typeof request.query.cursor === 'string' && decodeCursor(request.query.cursor) ? request.query.cursor : undefined;
    const page = await listProducts(app.orm.em, store, { limit: PAGE_SIZE, cursor }, publicUrl);
    const base = storeUrls({ publicUrl }, store.slug).url;
    return sendPage(reply, 200, renderStorefront(store, page.data, page.next_cursor ? `${base}?cursor=${page.next_cursor}` : null));
  });

  app.get<{ Params: { slug: string; id: string } }>('/s/:slug/products/:id', unmetered, async (request, reply) => {
    const store = await findStore(app.orm.em, { slug: request.params.slug });
    if (!store?.published) return sendPage(reply, 404, closed());
    const row = await findLiveProduct(app.orm.em, store.id, request.params.id);
    if (!row) return sendPage(reply, 404, renderClosed(store.name, 'Product not found', 'This product is not sold here (any more).'));
    return sendPage(reply, 200, renderProduct(store, presentProduct(row, store, publicUrl), storeUrls({ publicUrl }, store.slug).url));
  });
}
