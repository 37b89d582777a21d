import type { FastifyInstance } from 'fastify';
import { Store } from '../../db/entities/store.js';
import { RATE_LIMITS } from '../../domain/rate-limits.js';
import { defineRoute } from '../route.js';
import { StoreInfo } from '../schemas/me.js';
import { storeUrls } from '../urls.js';
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
      const principal = request.principal!;
      const store = await app.orm.em.findOneOrFail(Store, principal.storeId);
      const limits = RATE_LIMITS[principal.plan];
      const body: z.input<typeof StoreInfo> = {
        api_version: 'v1',
        store: {
          id: store.id,
          name: store.name,
          slug: store.slug,
          ...storeUrls(app.config, store.slug),
          currency: store.currency,
          mode: store.mode,
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
