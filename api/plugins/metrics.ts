import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../../observability/metrics.js';

/** The kind of key that called: a connection key is a secret key bound to a connected shop. */
function keyKind(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return 'none';
  return principal.connectionId !== null ? 'connection' : principal.kind;
}

/**
 * Counts every answered request once, labelled by its route pattern (never the raw URL, so the series
 * stay bounded), and observes its latency: one counter increment and one histogram observation per
 * request; 429s and 5xx are counted again on their own, rarely.
 */
export const metricsPlugin = fp<{ metrics: ApiMetrics }>(async (app: FastifyInstance, { metrics }) => {
  app.addHook('onResponse', (request, reply, done) => {
    // Paths no route matched share one label, whatever was asked for.
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const kind = keyKind(request);
    metrics.requests.inc({ route, method: request.method, status, key_kind: kind });
    metrics.duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    if (status === 429) metrics.rateLimited.inc({ route, key_kind: kind });
    else if (status >= 500) metrics.serverErrors.inc({ route, status });
    done();
  });
});
