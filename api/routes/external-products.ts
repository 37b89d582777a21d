import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defineRoute } from '../route.js';
import {
  ExternalProductBatch,
  ExternalProductBatchResult,
  ExternalProductDeleteResult,
  ExternalProductInput,
  ExternalProductParams,
} from '../../contract/schemas/external-products.js';
import { deleteExternalProduct, upsertExternalProducts, type ExternalSender } from '../../services/catalog/external.js';

/** The connection key's shop (the route table admits connection keys only). */
const senderOf = (request: FastifyRequest): ExternalSender => ({
  storeId: request.principal!.storeId,
  connectionId: request.principal!.connectionId!,
});

/** A connected shop's own products, kept apart from the catalogue: POST /external-products/batch, DELETE /external-products/{external_id}. */
export async function externalProductRoutes(app: FastifyInstance) {
  // The batch lists its items as a $ref to this schema, so it is registered by name.
  app.openapi.registry.register('ExternalProductInput', ExternalProductInput);

  defineRoute(
    app,
    'POST /external-products/batch',
    {
      operationId: 'upsertExternalProducts',
      summary: 'Create or update 1 to 100 of the connected shop’s products',
      description:
        'Upsert by external_id per connection; one result per product, in input order. These products are stored apart from the ' +
        "store's own products: never in GET /products, never in a cart, never on a storefront.",
      tag: 'External products',
      body: ExternalProductBatch,
      responses: { 200: { description: 'One result per product', schema: ExternalProductBatchResult } },
    },
    async (request) => ({ results: await upsertExternalProducts(app.orm.em, senderOf(request), request.body.products) }),
  );

  defineRoute(
    app,
    'DELETE /external-products/{external_id}',
    {
      operationId: 'deleteExternalProduct',
      summary: 'Remove one of the connected shop’s products by its external id',
      description: 'deleted is false when this connection held no product by that id.',
      tag: 'External products',
      params: ExternalProductParams,
      responses: { 200: { description: 'Removed or not held', schema: ExternalProductDeleteResult } },
    },
    async (request) => {
      const deleted = await deleteExternalProduct(app.orm.em, senderOf(request), request.params.external_id);
      return { external_id: request.params.external_id, deleted };
    },
  );
}
