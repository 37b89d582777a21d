import { webhookShards } from '../workflows/webhooks/definitions.js';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { RequestContext, type MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config/env.js';
import type { TemporalHandle } from '../temporal/client.js';
import { createOpenApiRegistry, type OpenApi } from './openapi.js';
import { ApiError } from '../contract/errors.js';
import { authPlugin } from './plugins/auth.js';
import { commonHeadersPlugin } from './plugins/common-headers.js';
import { errorHandlerPlugin, sendError, toApiError } from './plugins/error-handler.js';
import { corsPlugin } from './plugins/cors.js';
import { jsonBodyParser } from './plugins/raw-json-body.js';
import { noNulText } from './plugins/no-nul-text.js';
import { traceRoutePlugin } from './plugins/trace-route.js';
import { tracingActive } from '../observability/tracing.js';
import { meRoutes } from './routes/me.js';
import { orderRoutes } from './routes/orders.js';
import { webhookRoutes } from './routes/webhooks.js';
import { connectionRoutes } from './routes/connection.js';
import { trackingRoutes } from './routes/tracking.js';
import { productRoutes } from './routes/products.js';
import { externalProductRoutes } from './routes/external-products.js';
import { checkoutRoutes } from './routes/checkout.js';
import { metaRoutes } from './routes/meta.js';
import { webPages } from '../web/index.js';
import { createLogger } from '../observability/logger.js';
import { systemResolver, type Resolver } from '../services/outbound/target.js';
import { answerUnreadableRequest } from './unreadable-request.js';
import type { ApiMetrics } from '../observability/metrics.js';
import { metricsPlugin } from './plugins/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    orm: MikroORM;
    temporal: TemporalHandle;
    openapi: OpenApi;
    /** DNS for outbound targets (webhook and push URLs). */
    resolve: Resolver;
    /** Where the process is in its life: draining (shutting down) makes /readyz answer 503. */
    lifecycle: Lifecycle;
  }
}

export interface Lifecycle {
  draining: boolean;
}

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  temporal: TemporalHandle;
  /** Defaults to JSON logs on stdout at the configured level. */
  logger?: Logger;
  /** DNS for outbound targets; the system's unless a test supplies one (tests must not query real DNS). */
  resolve?: Resolver;
  /** Request counters and latency histograms (METRICS_PORT set); without them nothing is counted. */
  metrics?: ApiMetrics;
  /** How long a request may take to arrive, headers and body (REQUEST_TIMEOUTS unless a test shortens it). */
  timeouts?: { requestMs: number; headersMs: number };
}

/**
 * How long a client may take to send a request: its headers (10 s) and all of it, body included (30 s; a
 * 1 MB body at 40 KB/s). A stalled one is answered 408 and its connection closed, so it holds no turn, no
 * socket and no memory for long. Node checks every second (its default is every 30 s).
 */
export const REQUEST_TIMEOUTS = { requestMs: 30_000, headersMs: 10_000, checkEveryMs: 1_000 } as const;

/** Trusts the nearest `hops` addresses (the socket's peer is hop 0): the client is the entry the outermost trusted proxy added. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/** Composes the whole HTTP service; does not listen. */
export async function buildApp({
  config,
  orm,
  temporal,
  logger,
  resolve,
  metrics,
  timeouts = REQUEST_TIMEOUTS,
}: AppDeps): Promise<FastifyInstance> {
  // Order writes wake the dispatcher of their store's shard: the API must count shards as the worker does.
  webhookShards.count = config.webhookDispatch.shards;
  const app = Fastify({
    loggerInstance: (logger ?? createLogger(config.logLevel)) as FastifyBaseLogger,
    bodyLimit: 1_048_576,
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: REQUEST_TIMEOUTS.checkEveryMs,
    },
    // A hop count as a function: this Fastify ignores a numeric trustProxy (it trusts no hop then).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    genReqId: () => `req_${randomUUID().replaceAll('-', '')}`,
    // Requests the HTTP parser cannot read never reach Fastify's routing: the envelope, written on the socket.
    clientErrorHandler: answerUnreadableRequest,
    // Malformed URLs fail before any hook runs, so this path sets the envelope and headers itself.
    frameworkErrors: (err, request, reply) =>
      sendError(
        request,
        reply as FastifyReply,
        err.code === 'FST_ERR_BAD_URL' ? new ApiError('invalid_request', `The URL is malformed: ${err.message}`) : toApiError(err, request),
      ),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('config', config);
  app.decorate('orm', orm);
  app.decorate('temporal', temporal);
  app.decorate('openapi', createOpenApiRegistry());
  app.decorate('resolve', resolve ?? systemResolver);
  app.decorate('lifecycle', { draining: false });

  app.addHook('onRequest', (_request, _reply, done) => RequestContext.create(orm.em, done));
  if (metrics) await app.register(metricsPlugin, { metrics });
  if (tracingActive()) await app.register(traceRoutePlugin);
  await app.register(errorHandlerPlugin);
  await app.register(commonHeadersPlugin);
  await app.register(corsPlugin);
  await app.register(authPlugin);
  await app.register(jsonBodyParser);
  await app.register(noNulText);

  await app.register(meRoutes);
  await app.register(orderRoutes);
  await app.register(webhookRoutes);
  await app.register(connectionRoutes);
  await app.register(trackingRoutes);
  await app.register(productRoutes);
  await app.register(externalProductRoutes);
  await app.register(checkoutRoutes);
  await app.register(metaRoutes);
  await app.register(webPages);
  return app;
}
