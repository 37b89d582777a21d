import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyPushedUpdates, WebhookVerificationError } from '@store-commerce/sdk';
import { TIMESTAMP_TOLERANCE_SECONDS, type ApplyReport, type IncomingHeaders } from './protocol.js';

export interface PushReceiverOptions {
  /** The webhook_secret from the exchange (or pasted by the owner); undefined while not connected. */
  secret: () => string | undefined;
  /** Applies a batch and names every update: usually `(updates) => applyUpdates(updates, ledger, applyOne)`. */
  apply: (updates: unknown[]) => Promise<ApplyReport>;
  now?: () => number;
}

export type PushReply = { status: number; body: ApplyReport | { error: string } };

/**
 * Handles one push: 401 unless signed and fresh, 400 unless the body is {updates: [...]}, otherwise 200
 * with {applied, failed} naming every update (each applied at most once).
 */
export async function handlePush(headers: IncomingHeaders, rawBody: string, opts: PushReceiverOptions): Promise<PushReply> {
  const secret = opts.secret();
  if (!secret) return { status: 401, body: { error: 'not connected' } };
  let body: unknown;
  try {
    // The SDK's check: X-Service-Timestamp within 5 minutes, X-Service-Signature compared in constant time.
    body = await verifyPushedUpdates({
      secret,
      rawBody,
      headers,
      toleranceSeconds: TIMESTAMP_TOLERANCE_SECONDS,
      ...(opts.now ? { now: opts.now() } : {}),
    });
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    return { status: err.kind === 'body' ? 400 : 401, body: { error: err.message } };
  }
  const updates = (body as { updates?: unknown } | null)?.updates;
  if (!Array.isArray(updates)) return { status: 400, body: { error: 'body is not {updates: [...]}' } };
  return { status: 200, body: await opts.apply(updates) };
}

/** Reads a request's raw body (as received: the signature covers these exact bytes). */
export function readRawBody(req: IncomingMessage, limitBytes = 2 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A node:http handler for the push URL: reads the raw body, answers as handlePush says, never throws. */
export function pushListener(opts: PushReceiverOptions) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    let reply: PushReply;
    try {
      reply =
        req.method === 'POST' ? await handlePush(req.headers, await readRawBody(req), opts) : { status: 405, body: { error: 'POST only' } };
    } catch (err) {
      reply = { status: 500, body: { error: err instanceof Error ? err.message : 'failed' } };
    }
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  };
}
