import pino, { type Logger } from 'pino';
import { KEY_LIKE } from '../domain/api-keys.js';

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

/** Structured JSON logs (request id on every request line); keys and secrets redacted. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: {
        // The path without its query: a query may carry data we refuse to keep (keys, contacts).
        // A key pasted into a path (even of an unknown route) must not reach the logs either.
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          url: req.url
            .split('?')[0]!
            .replace(new RegExp(KEY_LIKE.source, 'gi'), '[redacted]')
            // A cart's token is its only credential.
            .replace(/\/cart\/[^/]+/, '/cart/[redacted]')
            // An order's tracking page id is its credential-like address: whoever has it sees the order.
            .replace(/\/track\/[^/]+/, '/track/[redacted]'),
          id: req.id,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
