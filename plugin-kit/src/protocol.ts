/** The connection protocol's shapes and numbers, as the specification states them (no service code). */

/** Pushes whose X-Service-Timestamp is further than this from the receiver's clock are refused (5 minutes). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
/** How long a connect state is kept by the plugin (15 minutes). */
export const STATE_TTL_MS = 15 * 60 * 1000;
/** How often a plugin pulls waiting updates as the fallback for lost pushes (15 minutes). */
export const PULL_INTERVAL_MS = 15 * 60 * 1000;
/** The service waits this long for a push reply by default (WEBHOOK_TIMEOUT_MS). */
export const PUSH_REPLY_TIMEOUT_MS = 8000;

export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';

export type Platform = 'platform_a' | 'platform_b';

/** An update going back to the shop, and the body of a push: the SDK's types, from the service's OpenAPI document. */
export type { Update, PushedUpdates as PushBody } from '@store-commerce/sdk';

/** What a plugin answers to a push, and what it acknowledges after a pull. */
export interface ApplyReport {
  applied: string[];
  failed: { id: string; error: string }[];
}

/** Headers as node:http gives them (lower-case names). */
export type IncomingHeaders = Record<string, string | string[] | undefined>;
