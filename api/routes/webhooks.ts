import type { FastifyInstance } from 'fastify';
import { defineRoute } from '../route.js';
import { WebhookCreate, WebhookCreated, WebhookDeleted, WebhookIdParams, WebhookList } from '../../contract/schemas/webhooks.js';
import { createEndpoint, deleteEndpoint, listEndpoints, MAX_ENDPOINTS_PER_STORE } from '../../services/webhooks/endpoints.js';
import { ApiError } from '../../contract/errors.js';
import { targetPolicy } from '../../config/env.js';

/** Webhook endpoints: GET/POST /webhooks, DELETE /webhooks/{id}. */
export async function webhookRoutes(app: FastifyInstance) {
  defineRoute(
    app,
    'GET /webhooks',
    {
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: 'The signing secret is never listed.',
      tag: 'Webhooks',
      responses: { 200: { description: 'Endpoints, newest first', schema: WebhookList } },
    },
    async (request) => ({ data: await listEndpoints(app.orm.em, request.principal!.storeId) }),
  );

  defineRoute(
    app,
    'POST /webhooks',
    {
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      description:
        `events omitted means ["*"] (every kind). 409 conflict when the same URL is already registered in this store, ` +
        `or when the store already has ${MAX_ENDPOINTS_PER_STORE} endpoints. Deliveries are signed: see docs/webhooks.md.`,
      tag: 'Webhooks',
      body: WebhookCreate,
      responses: { 201: { description: 'Created; the secret is shown only now', schema: WebhookCreated } },
      errors: ['conflict'],
    },
    async (request, reply) => {
      const events = request.body.events ?? ['*'];
      if (events.includes('*') && events.length > 1)
        throw new ApiError('invalid_request', 'events: "*" already means every kind; send it alone.', 'events');
      const created = await createEndpoint(app.orm.em, {
        storeId: request.principal!.storeId,
        url: request.body.url,
        events: [...new Set(events)],
        secretsKey: app.config.secretsKey!,
        policy: targetPolicy(app.config),
        resolve: app.resolve,
      });
      return reply.status(201).send(created);
    },
  );

  defineRoute(
    app,
    'DELETE /webhooks/{id}',
    {
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook endpoint',
      description: 'Nothing more is sent to it, including deliveries already queued.',
      tag: 'Webhooks',
      params: WebhookIdParams,
      responses: { 200: { description: 'Removed', schema: WebhookDeleted } },
      errors: ['not_found'],
    },
    async (request) => deleteEndpoint(app.orm.em, request.principal!.storeId, request.params.id),
  );
}
