// The transport both entry points share: openapi-fetch typed by the generated schema, a key, a timeout, retries.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import { StoreCommerceConnectionError, StoreCommerceError, toStoreCommerceError } from './errors.js';
import { DEFAULT_TIMEOUT_MS, retryingFetch, type RetryOptions } from './retry.js';
import { CLIENT_HEADER, SDK_VERSION } from './version.js';

export interface TransportOptions {
  /** The API base, `{PUBLIC_URL}/api/v1`, e.g. https://store.example/api/v1. */
  baseUrl: string;
  /** The key sent as Authorization: Bearer; omit it only for keyless calls (connect exchange, openapi.json). */
  apiKey?: string | undefined;
  /** Retries (429 and 503 after Retry-After; network errors on idempotent calls); false turns them off. */
  retry?: RetryOptions | false;
  /** How long one attempt may take, headers and body, in ms (default 30 000). */
  timeoutMs?: number;
  /** A fetch to use instead of globalThis.fetch (a proxy, a test recorder). */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** Per call: `signal` aborts the call (and its retries) at any time; the abort's reason is thrown as it is. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** The typed openapi-fetch client of every operation in the document. */
export type RawClient = Client<paths>;

/** A typed client with the key, the client header, the timeout and the retry policy applied. */
export function createTransport(options: TransportOptions): RawClient {
  const inner = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(inner, options.retry ?? {}, options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    headers: {
      ...options.headers,
      [CLIENT_HEADER]: `sdk-js/${SDK_VERSION}`,
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
  });
}

/** The body of a successful answer; any error answer becomes a thrown StoreCommerceError. */
export async function call<R extends { data?: unknown; error?: unknown; response: Response }>(
  pending: Promise<R>,
): Promise<NonNullable<R['data']>> {
  let result: R;
  try {
    result = await pending;
  } catch (err) {
    // The timeout fired while the body was read (after the headers): no whole answer arrived.
    if (!(err instanceof StoreCommerceError) && (err as Error)?.name === 'TimeoutError')
      throw new StoreCommerceConnectionError({
        message: 'the answer did not arrive whole within the timeout',
        timedOut: true,
        attempts: 1,
        cause: err,
      });
    throw err;
  }
  const { data, error, response } = result;
  if (!response.ok || data === undefined) throw toStoreCommerceError(response, error);
  return data as NonNullable<R['data']>;
}
