import { executeBound } from '../../db/bound.js';
import type { FastifyInstance } from 'fastify';
import { buildInfo } from '../../config/build-info.js';
import { ENDPOINTS } from '../access.js';
import { isTemporalReachable } from '../../temporal/client.js';
import { accessWords, errorResponses, generateOpenApiDocument, successHeaders } from '../openapi.js';
import { findRedocBundle, renderReferencePage } from '../docs-page.js';
import { renderPlainDocsPage } from '../docs-plain-page.js';
import { PAGE_HEADERS } from '../../web/html.js';
import { sharedReadiness } from '../readiness.js';

/** Keyless routes about the service itself: the OpenAPI document, its docs page, health probes. */
export async function metaRoutes(app: FastifyInstance) {
  let document: ReturnType<typeof generateOpenApiDocument> | undefined;
  // Built after every route has registered its schemas.
  const openapiDocument = () => (document ??= generateOpenApiDocument(app.openapi, app.config.baseUrl));

  const access = ENDPOINTS['GET /openapi.json'];
  app.get('/api/v1/openapi.json', { config: { access } }, async () => openapiDocument());
  app.openapi.registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 description',
    description: accessWords(access),
    tags: ['Service'],
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document of the API',
        headers: successHeaders,
        content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
      },
      ...errorResponses(access, false, []),
    },
  });
  app.get('/openapi.json', { config: { unmetered: true } }, async (_request, reply) => reply.redirect('/api/v1/openapi.json'));

  // Rendered by Redoc from the live document (its server is this PUBLIC_URL), once, on the first visit: the
  // bundle is the copy `npm run build` made, or in development the dev dependency's. Its own CSP allows
  // exactly its two inline scripts. Without the bundle, the plain page (no script) says the same things.
  let docsPage: { html: string; headers: Record<string, string> } | undefined;
  const renderDocs = () => {
    const bundle = findRedocBundle();
    if (!bundle) return { html: renderPlainDocsPage(openapiDocument()), headers: PAGE_HEADERS };
    const page = renderReferencePage(openapiDocument(), bundle);
    return { html: page.html, headers: { ...PAGE_HEADERS, 'content-security-policy': page.csp } };
  };
  app.get('/docs', { config: { unmetered: true } }, async (_request, reply) => {
    docsPage ??= renderDocs();
    return reply.headers(docsPage.headers).send(docsPage.html);
  });

  // The version lets a rolling deploy see which build answers (the commit is on the metrics page).
  app.get('/healthz', { config: { unmetered: true } }, async () => ({ ok: true, version: buildInfo().version }));
  const readiness = sharedReadiness(async () => {
    const [database, temporal] = await Promise.all([
      executeBound(app.orm.em.fork(), 'select 1').then(
        () => true,
        () => false,
      ),
      isTemporalReachable(app.temporal),
    ]);
    return { database, temporal };
  });
  app.get('/readyz', { config: { unmetered: true } }, async (_request, reply) => {
    // Shutting down: still serving, but a proxy must send new requests elsewhere (api/shutdown.ts).
    if (app.lifecycle.draining) return reply.status(503).send({ ok: false, draining: true });
    const { database, temporal } = await readiness();
    return reply.status(database && temporal ? 200 : 503).send({ ok: database && temporal, database, temporal });
  });
}
