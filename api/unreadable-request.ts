import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';

/** How long a client may keep sending after its unreadable request before the socket is cut. */
const DRAIN_MS = 2000;

/**
 * Answers a request Node's HTTP parser could not read (request line and headers over the server's
 * 16 KB, malformed HTTP, a request that never finished arriving) with the spec's envelope: 400
 * invalid_request, X-Request-Id and Cache-Control, and `Connection: close`. The parser cannot go on
 * after such an error, so the connection ends; the rest of what the client sends is read and dropped
 * first, so it gets the whole answer and a normal close, not a reset. Such a request was never
 * counted against a limit, so it carries no X-RateLimit-* headers.
 */
export function answerUnreadableRequest(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = `req_${randomUUID().replaceAll('-', '')}`;
  const message =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request line and headers are larger than the service accepts (16 KB).'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request did not arrive in time.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify({ error: { code: 'invalid_request', message, request_id: requestId } });
  const head = [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Cache-Control: no-store',
    'Connection: close',
  ];
  if (!socket.writable) return void socket.destroy();
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  socket.on('data', () => undefined).resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}
