import type { FastifyInstance } from 'fastify';
import { notFound } from '../../contract/errors.js';
import { defineRoute } from '../route.js';
import { CategoryList, ProductEnvelope, ProductIdParams, ProductList, ProductListQuery } from '../../contract/schemas/products.js';
import { presentProduct } from '../../services/catalog/product-row.js';
import { findLiveProduct, listCategories, listProducts, publishedStore } from '../../services/catalog/read.js';

const UNPUBLISHED = 'An unpublished store answers 404 not_found for its whole catalogue.';

/** The catalogue: GET /products, GET /products/{id}, GET /categories (published stores only). */
export async function productRoutes(app: FastifyInstance) {
  const publicUrl = app.config.publicUrl;

  defineRoute(
    app,
    'GET /products',
    {
      operationId: 'listProducts',
      summary: 'List products, newest first',
      description: `Archived products are never listed; prices are those the storefront shows. ${UNPUBLISHED}`,
      tag: 'Catalogue',
      query: ProductListQuery,
      responses: { 200: { description: 'A page of products', schema: ProductList } },
      errors: ['not_found'],
    },
    async (request) => {
      const store = publishedStore(request.principal!);
      return listProducts(app.orm.em, store, request.query, publicUrl);
    },
  );

  defineRoute(
    app,
    'GET /products/{id}',
    {
      operationId: 'getProduct',
      summary: 'One product by its id',
      description: `404 for an unknown, archived or other store's product. ${UNPUBLISHED}`,
      tag: 'Catalogue',
      params: ProductIdParams,
      responses: { 200: { description: 'The product', schema: ProductEnvelope } },
      errors: ['not_found'],
    },
    async (request) => {
      const store = publishedStore(request.principal!);
      const row = await findLiveProduct(app.orm.em, store.id, request.params.id);
      if (!row) throw notFound('product');
      return { product: presentProduct(row, store, publicUrl) };
    },
  );

  defineRoute(
    app,
    'GET /categories',
    {
      operationId: 'listCategories',
      summary: 'The category names of the live products',
      description: `Sorted, each once; use a name as GET /products?category=. ${UNPUBLISHED}`,
      tag: 'Catalogue',
      responses: { 200: { description: 'Category names', schema: CategoryList } },
      errors: ['not_found'],
    },
    async (request) => {
      const store = publishedStore(request.principal!);
      return { data: await listCategories(app.orm.em, store.id) };
    },
  );
}
