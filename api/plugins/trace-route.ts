import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { annotateActiveSpan } from '../../config/trace-context.js';

/**
 * Names the HTTP server span (started by the http instrumentation) after the matched route, as
 * `POST /api/v1/orders`, and tags it with the request id the response carries. Registered only when
 * tracing is on.
 */
export const traceRoutePlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url;
    annotateActiveSpan(route ? `${request.method} ${route}` : null, {
      ...(route ? { 'http.route': route } : {}),
      'http.request_id': request.id,
    });
  });
});
