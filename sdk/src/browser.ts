// `@store-commerce/sdk/browser`: what browser code may do with a publishable key. No Node module is imported here.
import { call, createTransport, type CallOptions, type TransportOptions } from './core.js';
import { catalogue } from './catalogue.js';

export { StoreCommerceError, StoreCommerceConnectionError, type ErrorCode } from './errors.js';
export type { CallOptions } from './core.js';
export type { RetryOptions } from './retry.js';
export type { Page, PagedList } from './pagination.js';
export type { components, paths } from './schema.js';

/**
 * A client for a publishable key (svc_live_pk_…) in the browser: products, categories, checkout sessions and
 * tracking, from a website on the key's allowed list.
 */
export function createBrowserClient(options: Omit<TransportOptions, 'apiKey'> & { publishableKey: string }) {
  const raw = createTransport({ ...options, apiKey: options.publishableKey });
  return { raw, me: (o: CallOptions = {}) => call(raw.GET('/me', { ...o })), ...catalogue(raw) };
}
export type BrowserClient = ReturnType<typeof createBrowserClient>;
