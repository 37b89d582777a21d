import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { annotateActiveSpan, distrustClientTraceContext, linkClientTrace } from '../../observability/trace-context.js';

/**
 * Names the HTTP server span (started by the http instrumentation) after the matched route, as
 * `POST /api/v1/orders`, and tags it with the request id the response carries. Every request starts a
 * trace of its own: a client's `traceparent` is only linked (observability/trace-context.ts says why).
 * Registered only when tracing is on.
 */
export const traceRoutePlugin = fp(async (app: FastifyInstance) => {
  distrustClientTraceContext(app.server);
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url;
    annotateActiveSpan(route ? `${request.method} ${route}` : null, {
      ...(route ? { 'http.route': route } : {}),
      'store_commerce.request_id': request.id,
    });
    linkClientTrace(request.raw);
  });
});
