import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';

// OpenTelemetry is off unless the standard OTEL_EXPORTER_OTLP_ENDPOINT (or its traces-only form) is
// set: only then is the SDK imported, so the default path loads none of it. The SDK reads the other
// standard variables itself (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_SCHEDULE_DELAY …); OTEL_RESOURCE_ATTRIBUTES
// is read into the resource (observability/tracing-sdk.ts).

const TracingEnv = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false', '']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  // The instrumentations' semantic conventions: the stable HTTP and database names unless told otherwise.
  OTEL_SEMCONV_STABILITY_OPT_IN: z.string().optional(),
  // The exporter speaks OTLP over HTTP (JSON bodies, which OTLP/HTTP receivers accept); gRPC is not built in.
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/json', 'http/protobuf'], { message: 'must be http/json (gRPC is not supported)' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/json', 'http/protobuf'], { message: 'must be http/json (gRPC is not supported)' })
    .optional(),
});

export type TracingRole = 'api' | 'worker' | 'service';

export interface TracingSettings {
  endpoint: string;
  serviceName: string;
  /** True when OTEL_SERVICE_NAME named the service (it then wins over OTEL_RESOURCE_ATTRIBUTES' service.name). */
  serviceNamed: boolean;
  /** OTEL_SEMCONV_STABILITY_OPT_IN as the instrumentations read it: `http,database` (the stable conventions) by default. */
  semconvOptIn: string;
}

/** What tracing the environment asks for: null (off) unless an OTLP endpoint is set and the SDK is not disabled. */
export function tracingSettings(env: Record<string, string | undefined>, role: TracingRole): TracingSettings | null {
  const parsed = TracingEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || e.OTEL_SDK_DISABLED === 'true') return null;
  return {
    endpoint,
    serviceName: e.OTEL_SERVICE_NAME ?? (role === 'service' ? 'store-commerce' : `store-commerce-${role}`),
    serviceNamed: e.OTEL_SERVICE_NAME !== undefined,
    semconvOptIn: e.OTEL_SEMCONV_STABILITY_OPT_IN?.trim() || 'http,database',
  };
}

export interface TracingHandle {
  /** Exports the spans still buffered and stops; call before the process exits. */
  shutdown(): Promise<void>;
  /** Where spans made inside workflows (handed out of the sandbox through a sink) go. */
  workflowSpans: { processor: SpanProcessor; resource: Resource };
}

let active: TracingHandle | null = null;

/**
 * Starts the OpenTelemetry SDK for this process when the environment asks for it (once; later calls
 * return the same handle), else returns null having loaded nothing. Call first thing in a process entry.
 */
export async function startTracing(env: Record<string, string | undefined>, role: TracingRole): Promise<TracingHandle | null> {
  if (active) return active;
  const settings = tracingSettings(env, role);
  if (!settings) return null;
  const { startTracingSdk } = await import('./tracing-sdk.js');
  active = startTracingSdk(settings);
  return active;
}

/** True once startTracing has started the SDK in this process. */
export function tracingActive(): boolean {
  return active !== null;
}

/** The handle startTracing returned in this process, or null when tracing is off. */
export function activeTracing(): TracingHandle | null {
  return active;
}
