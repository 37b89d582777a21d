// Retry-After honoured: a fetch that waits and tries again, a bounded number of times, on 429 and 503.
import { parseRetryAfter } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first on 429 or 503 (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** Longest wait the client accepts before one retry, in ms (default 60 000); a longer Retry-After fails at once. */
  maxDelayMs?: number;
  /** Wait when an answer names no Retry-After, in ms (default 1000). */
  defaultDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * Wraps fetch so that a 429 or 503 answer is retried after its Retry-After, at most maxRetries times and
 * never after a wait above maxDelayMs; the last answer is returned as it is. The request is cloned before
 * each attempt, so a body is sent again whole. Safe for every operation of this API: a 429 or 503 means
 * the request was not carried out, and the writes are upserts by external id.
 */
export function retryingFetch(inner: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const defaultDelayMs = options.defaultDelayMs ?? 1000;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await inner(attempt < maxRetries ? request.clone() : request);
      if ((response.status !== 429 && response.status !== 503) || attempt >= maxRetries) return response;
      const seconds = parseRetryAfter(response.headers.get('retry-after'));
      const delay = seconds === undefined ? defaultDelayMs : seconds * 1000;
      if (delay > maxDelayMs) return response;
      // The answer is dropped: read it out so the connection goes back to the pool.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}
