import pino, { type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { redactPath } from './redact-url.js';
import { tracingActive } from './tracing.js';

/** Paths that may carry keys or secrets; pino replaces them before a line is written. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.key',
  '*.secret',
  '*.api_key',
  '*.webhook_secret',
  '*.password',
];

/** The active span's ids, so a log line leads to its trace (only when tracing is on: otherwise there is never a span). */
function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return trace.isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}

/**
 * Structured JSON logs (request id on every request line); keys and secrets redacted; with tracing on,
 * `trace_id` and `span_id` of the active span on every line written inside one.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      ...(tracingActive() ? { mixin: traceIds } : {}),
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: {
        // The path without its query: a query may carry data we refuse to keep (keys, contacts).
        // A key pasted into a path (even of an unknown route) must not reach the logs either.
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactPath(req.url), id: req.id }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
