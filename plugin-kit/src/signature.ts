import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, TIMESTAMP_TOLERANCE_SECONDS, type IncomingHeaders } from './protocol.js';

export type PushCheck = { ok: true } | { ok: false; reason: string };

/** X-Service-Signature for a push: `sha256=` + hex HMAC-SHA256(secret, `timestamp + "." + raw body`). */
export function pushSignature(secret: string, timestamp: number | string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** The two headers the service sends with a push body, signed now (or at `timestamp`). */
export function signPush(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: pushSignature(secret, timestamp, rawBody),
  };
}

/**
 * Trusts a push only when X-Service-Timestamp is within 5 minutes of `nowSeconds` and X-Service-Signature
 * matches the raw body, compared in constant time. Pass the body exactly as received, never re-serialised.
 */
export function verifyPush(
  headers: IncomingHeaders,
  rawBody: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): PushCheck {
  const timestamp = single(headers[TIMESTAMP_HEADER]);
  const signature = single(headers[SIGNATURE_HEADER]);
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing or malformed X-Service-Timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp more than 5 minutes off' };
  if (!signature) return { ok: false, reason: 'missing X-Service-Signature' };
  const expected = Buffer.from(pushSignature(secret, timestamp, rawBody));
  const received = Buffer.from(signature);
  // timingSafeEqual needs equal lengths; a length difference reveals nothing about the secret.
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) return { ok: false, reason: 'signature mismatch' };
  return { ok: true };
}

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
