import type { FastifyInstance } from 'fastify';
import { defineRoute } from '../route.js';
import { CheckoutSession, CheckoutSessionRequest } from '../../contract/schemas/checkout.js';
import { createCheckoutSession } from '../../services/checkout/sessions.js';

/** POST /checkout/sessions: prepares a cart on the service's own cart page. */
export async function checkoutRoutes(app: FastifyInstance) {
  defineRoute(
    app,
    'POST /checkout/sessions',
    {
      operationId: 'createCheckoutSession',
      summary: 'Prepare a checkout: a cart page for 1 to 50 lines',
      description:
        'Prices, stock and payment belong to the service: a price in the body is ignored. An unknown, archived or unpublished ' +
        'product, a variant that matches none of the product’s, or stock that cannot cover a line is 422 unprocessable with ' +
        'param naming the line (items.2.quantity). With a publishable key, return_url must be on the key’s allowed websites ' +
        '(403 forbidden otherwise); with a secret key it must be https (400). The link expires after CHECKOUT_TTL_SECONDS (24 h).',
      tag: 'Checkout',
      body: CheckoutSessionRequest,
      responses: { 201: { description: 'The cart is ready; send the shopper to url', schema: CheckoutSession } },
      errors: ['unprocessable'],
    },
    async (request, reply) => {
      const session = await createCheckoutSession(app.orm.em, request.principal!, request.body, {
        publicUrl: app.config.publicUrl,
        ttlSeconds: app.config.checkoutTtlSeconds,
      });
      return reply.status(201).send(session);
    },
  );
}
