/** Requests per minute, from the spec's Limits table. */
export const RATE_LIMITS = {
  free: { secret: 60, publishable: 600, publishableVisitorIp: 30 },
  paid: { secret: 300, publishable: 3000, publishableVisitorIp: 60 },
} as const;

/** Per client IP, for keyless routes and for requests whose key is missing or wrong (our choice; the spec is silent). */
export const ANONYMOUS_PER_IP = 60;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the current one-minute window ends. */
  resetAt: number;
}

/** Combines counters into the state a client sees: the most constraining one wins. */
export function rateLimitState(resetAt: number, ...counters: { limit: number; count: number }[]): RateLimitState {
  let best: RateLimitState | undefined;
  for (const { limit, count } of counters) {
    const remaining = Math.max(0, limit - count);
    const overBy = count - limit;
    if (!best || remaining < best.remaining || (remaining === 0 && overBy > 0)) best = { limit, remaining, resetAt };
  }
  return best ?? { limit: ANONYMOUS_PER_IP, remaining: ANONYMOUS_PER_IP, resetAt };
}

/** True when any counter went past its limit with this request. */
export function isOverLimit(...counters: { limit: number; count: number }[]): boolean {
  return counters.some(({ limit, count }) => count > limit);
}
