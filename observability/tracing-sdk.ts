// Loaded only when tracing is on (observability/tracing.ts imports it dynamically).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { buildInfo } from '../config/build-info.js';
import { redactOutboundUrl, redactPath } from './redact-url.js';
import type { TracingHandle, TracingSettings } from './tracing.js';

/**
 * The resource every span carries: service.name, service.version (package.json), service.instance.id (one
 * per process), then OTEL_RESOURCE_ATTRIBUTES over them, then OTEL_SERVICE_NAME over everything (the spec's order).
 */
export function tracingResource(settings: TracingSettings): Resource {
  const own = new Resource({
    'service.name': settings.serviceName,
    'service.version': buildInfo().version,
    'service.instance.id': randomUUID(),
  });
  const merged = own.merge(envDetectorSync.detect());
  return settings.serviceNamed ? merged.merge(new Resource({ 'service.name': settings.serviceName })) : merged;
}

/** URL attributes of both conventions (the stable ones and the old ones, should OTEL_SEMCONV_STABILITY_OPT_IN ask for them). */
const QUERY_KEYS = ['url.query'];
const PATH_KEYS = ['url.path', 'http.target'];
const FULL_KEYS = ['url.full', 'http.url'];

/**
 * Rewrites what the http instrumentation recorded of URLs before the span is exported: an inbound path
 * without its query or capability segments (cart tokens, tracking ids, keys), an outbound URL as its
 * origin only (a Web Push endpoint's path is its secret; a webhook URL may carry a token). Runs before
 * the batch processor, which exports later.
 */
export const redactingProcessor: SpanProcessor = {
  onStart() {},
  onEnd(span: ReadableSpan) {
    const attributes = span.attributes as Record<string, unknown>;
    for (const key of QUERY_KEYS) delete attributes[key];
    const outbound = span.kind === SpanKind.CLIENT;
    for (const key of PATH_KEYS) {
      if (typeof attributes[key] !== 'string') continue;
      if (outbound) delete attributes[key];
      else attributes[key] = redactPath(attributes[key]);
    }
    for (const key of FULL_KEYS) {
      if (typeof attributes[key] !== 'string') continue;
      attributes[key] = outbound ? redactOutboundUrl(attributes[key]) : redactInbound(attributes[key]);
    }
  },
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

function redactInbound(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${redactPath(u.pathname)}`;
  } catch {
    return redactPath(url);
  }
}

/** Registers the global tracer provider (W3C propagation, async context), the HTTP and pg instrumentations, and an OTLP/HTTP exporter. */
export function startTracingSdk(settings: TracingSettings): TracingHandle {
  // The instrumentations read it from the environment when they are built (http) or load (pg).
  process.env.OTEL_SEMCONV_STABILITY_OPT_IN = settings.semconvOptIn;
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT; batching reads OTEL_BSP_*.
  const resource = tracingResource(settings);
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [redactingProcessor, processor] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Outbound requests are traced only inside a trace (a webhook delivery), never as stray roots.
        requireParentforOutgoingSpans: true,
        // Probes every few seconds would bury the requests worth seeing.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz',
      }),
      // SQL outside a traced request (the relay's and lanes' polling) would be noise: only children are kept.
      // With `database` in OTEL_SEMCONV_STABILITY_OPT_IN: db.system.name, db.namespace, db.query.text (the stable names).
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  // Our modules are ESM and may have imported these before this ran; the hooks patch the CommonJS
  // exports (prototypes and functions) that ESM importers share, so requiring them once here suffices.
  const require = createRequire(import.meta.url);
  for (const name of ['http', 'https', 'pg']) require(name);
  // MikroORM may carry a pg of its own (another version): the one its connections use.
  createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg');
  return { shutdown: () => provider.shutdown(), workflowSpans: { processor, resource: Resource.default().merge(resource) } };
}
