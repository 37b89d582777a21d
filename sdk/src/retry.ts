// The transport's resilience: a timeout on every attempt, and retries with exponential back-off and jitter on
// 429 and 503 (after Retry-After) and, for idempotent calls only, on network errors and timeouts.
import { parseRetryAfter, StoreCommerceConnectionError } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** Longest wait the client accepts before one retry, in ms (default 60 000); a longer Retry-After fails at once. */
  maxDelayMs?: number;
  /** First back-off when no Retry-After says how long, in ms (default 500); it doubles each attempt, with full jitter. */
  initialDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

/** The default time one attempt may take, headers and body, before it is abandoned (30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * POSTs that are safe to send twice (spec: POST /orders "creates, or updates when the external_id was seen
 * before (safe to retry)"; the batches are such upserts one by one; acknowledging an update twice changes
 * nothing). Every other POST (checkout sessions, webhook endpoints, the connect exchange and disconnect) and
 * PATCH are not retried after a network error: the first attempt may have been carried out.
 */
const IDEMPOTENT_POSTS = [/\/orders$/, /\/orders\/batch$/, /\/external-products\/batch$/, /\/connection\/updates\/ack$/];

/** True when sending this request a second time cannot do anything the first did not. */
export function isIdempotent(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(method)) return true;
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  return method === 'POST' && IDEMPOTENT_POSTS.some((p) => p.test(path));
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** Full jitter: a random wait between 0 and initial × 2^attempt, capped at 8 s. */
const backoff = (initialDelayMs: number, attempt: number) => Math.random() * Math.min(8000, initialDelayMs * 2 ** attempt);

/**
 * Wraps fetch: each attempt is abandoned after timeoutMs (the caller's own signal aborts it at any time, and
 * is never retried); a network error or timeout becomes a StoreCommerceConnectionError, retried when the
 * request is idempotent; a 429 or 503 answer is retried after its Retry-After (else the back-off), never after
 * a wait above maxDelayMs; the last answer is returned as it is. The request is cloned before each attempt,
 * so a body is sent again whole.
 */
export function retryingFetch(inner: Fetch, options: RetryOptions | false = {}, timeoutMs = DEFAULT_TIMEOUT_MS): Fetch {
  const maxRetries = options === false ? 0 : (options.maxRetries ?? 2);
  const maxDelayMs = (options || {}).maxDelayMs ?? 60_000;
  const initialDelayMs = (options || {}).initialDelayMs ?? 500;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await inner(new Request(last ? request : request.clone(), { signal: AbortSignal.any([request.signal, timeout]) }));
      } catch (err) {
        if (request.signal.aborted) throw request.signal.reason;
        const timedOut = timeout.aborted;
        const error = new StoreCommerceConnectionError({
          message: timedOut ? `no answer within ${timeoutMs} ms` : `the request failed: ${describe(err)}`,
          timedOut,
          attempts: attempt + 1,
          cause: err,
        });
        if (last || !isIdempotent(request)) throw error;
        await sleep(backoff(initialDelayMs, attempt), request.signal);
        continue;
      }
      if ((response.status !== 429 && response.status !== 503) || last) return response;
      const seconds = parseRetryAfter(response.headers.get('retry-after'));
      const delay = seconds === undefined ? backoff(initialDelayMs, attempt) : seconds * 1000;
      if (delay > maxDelayMs) return response;
      // The answer is dropped: read it out so the connection goes back to the pool.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } } | undefined;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
