import { createHmac, timingSafeEqual } from 'node:crypto';

/** Pushed updates older or newer than this are refused (spec: 5 minutes). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type PushCheck = { ok: true } | { ok: false; reason: string };

/**
 * Verifies a push from the service before its body is trusted: the timestamp is within 5 minutes, and
 * X-Service-Signature equals sha256= + hex HMAC-SHA256(webhook_secret, timestamp + "." + raw body),
 * compared in constant time. Pass the raw body exactly as received (never a re-serialised object).
 */
export function verifyPush(
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): PushCheck {
  const timestamp = single(headers['x-service-timestamp']);
  const signature = single(headers['x-service-signature']);
  if (!timestamp || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'missing or malformed X-Service-Timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp more than 5 minutes off' };
  if (!signature) return { ok: false, reason: 'missing X-Service-Signature' };
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`);
  const received = Buffer.from(signature);
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) return { ok: false, reason: 'signature mismatch' };
  return { ok: true };
}

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
