/**
 * The width of a checkout-expiry bucket for a session lifetime: a sixtieth of it, at least 1 s and at
 * most 60 s (so the default day-long session is expired within a minute of its end, and a test's 2 s
 * session within a second). Buckets are aligned to the epoch, so every API process picks the same ones.
 */
export function expiryBucketSeconds(ttlSeconds: number): number {
  return Math.min(60, Math.max(1, Math.round(ttlSeconds / 60)));
}
