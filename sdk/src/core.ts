// The transport both entry points share: openapi-fetch typed by the generated schema, a key, Retry-After retries.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import { toStoreCommerceError } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export interface TransportOptions {
  /** The API base, `{PUBLIC_URL}/api/v1`, e.g. https://store.example/api/v1. */
  baseUrl: string;
  /** The key sent as Authorization: Bearer; omit it only for keyless calls (connect exchange, openapi.json). */
  apiKey?: string | undefined;
  /** Retries on 429 and 503 after Retry-After; false turns them off. */
  retry?: RetryOptions | false;
  /** A fetch to use instead of globalThis.fetch (a proxy, a test recorder). */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** The typed openapi-fetch client of every operation in the document. */
export type RawClient = Client<paths>;

/** A typed client with the key and the retry policy applied. */
export function createTransport(options: TransportOptions): RawClient {
  const inner = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.retry === false ? inner : retryingFetch(inner, options.retry),
    headers: { ...options.headers, ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
  });
}

/** The body of a successful answer; any error answer becomes a thrown StoreCommerceError. */
export async function call<R extends { data?: unknown; error?: unknown; response: Response }>(
  pending: Promise<R>,
): Promise<NonNullable<R['data']>> {
  const { data, error, response } = await pending;
  if (!response.ok || data === undefined) throw toStoreCommerceError(response, error);
  return data as NonNullable<R['data']>;
}
