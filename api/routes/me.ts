import type { FastifyInstance } from 'fastify';
import { RATE_LIMITS } from '../../domain/rate-limits.js';
import { defineRoute } from '../route.js';
import { StoreInfo } from '../../contract/schemas/me.js';
import { storeUrls } from '../../contract/urls.js';
import type { z } from 'zod';

/** GET /me: the first call of an integration. */
export async function meRoutes(app: FastifyInstance) {
  defineRoute(
    app,
    'GET /me',
    {
      operationId: 'getMe',
      summary: 'The store and key behind this request',
      description: 'Intended as the first call of an integration.',
      tag: 'Store',
      responses: { 200: { description: 'Store info', schema: StoreInfo } },
    },
    async (request) => {
      // Everything comes from the auth statement: /me costs no query of its own.
      const principal = request.principal!;
      const limits = RATE_LIMITS[principal.plan];
      const body: z.input<typeof StoreInfo> = {
        api_version: 'v1',
        store: {
          id: principal.storeId,
          name: principal.storeName,
          slug: principal.storeSlug,
          ...storeUrls(app.config, principal.storeSlug),
          currency: principal.storeCurrency,
          mode: principal.storeMode,
        },
        key: {
          kind: principal.kind === 'publishable' ? 'publishable' : 'secret',
          scopes: principal.scopes,
          connection_id: principal.connectionId,
        },
        limits: { requests_per_minute: principal.kind === 'publishable' ? limits.publishable : limits.secret },
      };
      return body;
    },
  );
}
