// `@store-commerce/sdk`: the typed client of the Store Commerce API v1 and the receivers' signature checks.
export { createStoreCommerceClient, type StoreCommerceClient, type OrderListFilter } from './client.js';
export { createBrowserClient, type BrowserClient } from './browser.js';
export type { TransportOptions, RawClient } from './core.js';
export { StoreCommerceError, parseRetryAfter, type ErrorCode } from './errors.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export { iteratePages, type Page, type PagedList } from './pagination.js';
export {
  verifyWebhook,
  verifyStandardWebhook,
  verifyServiceSignature,
  verifyPushedUpdates,
  WebhookVerificationError,
  type VerifyOptions,
  type HeaderSource,
} from './webhooks.js';
export type { components, paths } from './schema.js';
