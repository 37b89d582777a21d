// Loaded only when tracing is on (config/tracing.ts imports it dynamically).
import { createRequire } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingHandle, TracingSettings } from './tracing.js';

/** Registers the global tracer provider (W3C propagation, async context), the HTTP and pg instrumentations, and an OTLP/HTTP exporter. */
export function startTracingSdk(settings: TracingSettings): TracingHandle {
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT; batching reads OTEL_BSP_*.
  const resource = new Resource({ 'service.name': settings.serviceName });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
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
