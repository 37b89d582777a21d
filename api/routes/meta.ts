import type { FastifyInstance } from 'fastify';
import { ENDPOINTS } from '../access.js';
import { isTemporalReachable } from '../../temporal/client.js';
import { generateOpenApiDocument } from '../openapi.js';
import { renderDocsPage } from '../docs-page.js';

/** Keyless routes about the service itself: the OpenAPI document, its docs page, health probes. */
export async function metaRoutes(app: FastifyInstance) {
  let document: ReturnType<typeof generateOpenApiDocument> | undefined;
  // Built after every route has registered its schemas.
  const openapiDocument = () => (document ??= generateOpenApiDocument(app.openapi, app.config.baseUrl));

  app.get('/api/v1/openapi.json', { config: { access: ENDPOINTS['GET /openapi.json'] } }, async () => openapiDocument());
  app.get('/openapi.json', { config: { unmetered: true } }, async (_request, reply) => reply.redirect('/api/v1/openapi.json'));

  let docsHtml: string | undefined;
  app.get('/docs', { config: { unmetered: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send((docsHtml ??= renderDocsPage(openapiDocument()))),
  );

  app.get('/healthz', { config: { unmetered: true } }, async () => ({ ok: true }));
  app.get('/readyz', { config: { unmetered: true } }, async (_request, reply) => {
    const [database, temporal] = await Promise.all([
      app.orm.em
        .getConnection()
        .execute('select 1', [], 'all')
        .then(() => true, () => false),
      isTemporalReachable(app.temporal),
    ]);
    return reply.status(database && temporal ? 200 : 503).send({ ok: database && temporal, database, temporal });
  });
}
