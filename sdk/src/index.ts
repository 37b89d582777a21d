// `@store-commerce/sdk`: the typed client of the Store Commerce API v1 and the receivers' signature checks.
export { createStoreCommerceClient, type StoreCommerceClient, type OrderListFilter } from './client.js';
export { createBrowserClient, type BrowserClient } from './browser.js';
export type { TransportOptions, RawClient, CallOptions } from './core.js';
export { StoreCommerceError, StoreCommerceConnectionError, parseRetryAfter, type ErrorCode } from './errors.js';
export { retryingFetch, isIdempotent, DEFAULT_TIMEOUT_MS, type RetryOptions } from './retry.js';
export { iteratePages, type Page, type PagedList } from './pagination.js';
export { SDK_VERSION, CLIENT_HEADER } from './version.js';
export {
  verifyWebhook,
  verifyStandardWebhook,
  verifyServiceSignature,
  verifyPushedUpdates,
  WebhookVerificationError,
  type VerifyOptions,
  type VerifyWebhookOptions,
  type HeaderSource,
  type WebhookEvent,
  type WebhookEventType,
  type PushedUpdates,
  type Update,
} from './webhooks.js';
export type { components, paths, webhooks } from './schema.js';
