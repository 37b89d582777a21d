import type { IncomingMessage, Server } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';

// Only @opentelemetry/api is used here: without the SDK (tracing off) its calls are no-ops that
// allocate nothing, so the code paths below cost nothing by default (observability/tracing.ts loads the SDK).

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const tracer = () => trace.getTracer('store-commerce');

/** The active span as a W3C `traceparent`, or null when nothing is traced (always null with tracing off). */
export function currentTraceparent(): string | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote context a stored `traceparent` names, or null when there is none or it is malformed. */
export function contextFromTraceparent(traceparent: string | null | undefined): Context | null {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return null;
  const spanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : null;
}

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** Spans this work is related to without being their child (a lane run serving many orders). */
  links?: Link[];
}

/**
 * Runs fn in a span whose parent is the stored `traceparent` (an order's trace, carried by a row); with
 * no traceparent fn runs untraced. The span ends when fn settles and records its failure.
 */
export async function inStoredTrace<T>(name: string, traceparent: string | null | undefined, options: SpanOptions, fn: () => Promise<T>) {
  const parent = contextFromTraceparent(traceparent);
  if (!parent) return fn();
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
    async (span) => {
      try {
        return await fn();
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A link to the span a stored `traceparent` names (none when it is null or malformed). */
export function traceLink(traceparent: string | null | undefined): Link[] {
  const parent = contextFromTraceparent(traceparent);
  const spanContext = parent && trace.getSpanContext(parent);
  return spanContext ? [{ context: spanContext }] : [];
}

/** The active span as a link (the lane's activity run a delivery belongs to), when there is one. */
export function activeSpanLinks(): Link[] {
  const span = trace.getActiveSpan();
  return span && trace.isSpanContextValid(span.spanContext()) ? [{ context: span.spanContext() }] : [];
}

/**
 * Runs fn outside any trace: batch work that serves many orders (a lane run) would otherwise hang its
 * polling SQL under whichever order's trace started it. Spans fn starts from a stored traceparent still join that trace.
 */
export function outsideTraces<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

/** Marks the active span failed with a message (an outcome that is not an exception, e.g. a 500 answer). */
export function markActiveSpanFailed(message: string): void {
  trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** Sets attributes on the active span, if any (the HTTP server span gets its route this way). */
export function annotateActiveSpan(name: string | null, attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  if (name) span.updateName(name);
  span.setAttributes(attributes);
}

/** Trace context headers a client may send; none of them is followed (distrustClientTraceContext). */
const CLIENT_TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;
const clientTraceparents = new WeakMap<IncomingMessage, string>();

/**
 * Makes `server` start every request's trace as a new root, whatever `traceparent` the client sent:
 * anyone may send one, and our trace travels on to tenants' receivers (the webhook POST's `traceparent`),
 * so following it would let a client join a tenant's deliveries to a trace of its choosing. The client's
 * header is removed before the http instrumentation reads it; linkClientTrace links the request's span to it.
 */
export function distrustClientTraceContext(server: Server): void {
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request') {
      const request = args[0] as IncomingMessage;
      const sent = request.headers.traceparent;
      if (typeof sent === 'string') clientTraceparents.set(request, sent);
      for (const header of CLIENT_TRACE_HEADERS) delete request.headers[header];
    }
    return emit.apply(this, [event, ...args] as Parameters<Server['emit']>);
  } as Server['emit'];
}

/** Links the active span to the trace the client named in its `traceparent`, if it sent a valid one: related, never the parent. */
export function linkClientTrace(request: IncomingMessage): void {
  const span = trace.getActiveSpan();
  const links = traceLink(clientTraceparents.get(request));
  if (span && links.length) span.addLinks(links);
}
