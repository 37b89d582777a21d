import { CHAT_SETTINGS } from './chat-settings.js';
import { CHECKOUT_EXPIRY_BUCKETS } from './checkout-expiry-buckets.js';
import { CHECKOUT_SESSIONS } from './checkout-sessions.js';
import { CONNECT_CODES } from './connect-codes.js';
import { CONNECTION_UPDATES } from './connection-updates.js';
import { CONNECTIONS } from './connections.js';
import { EXTERNAL_PRODUCTS } from './external-products.js';
import { LANES } from './lanes.js';
import { ORDER_EVENTS } from './order-events.js';
import { ORDER_MESSAGES } from './order-messages.js';
import { ORDER_STATUS_HISTORY } from './order-status-history.js';
import { ORDERS } from './orders.js';
import { OUTBOX } from './outbox.js';
import { OWNER_PASSWORD_RESETS } from './owner-password-resets.js';
import { OWNER_SESSIONS } from './owner-sessions.js';
import { OWNER_STORES } from './owner-stores.js';
import { OWNERS } from './owners.js';
import { PRODUCTS } from './products.js';
import { PUSH_SUBSCRIPTIONS } from './push-subscriptions.js';
import { RATE_LIMIT_COUNTERS } from './rate-limit-counters.js';
import { SIGN_IN_THROTTLE } from './sign-in-throttle.js';
import { TRACKING_LOCKOUTS } from './tracking-lockouts.js';
import { VAPID_KEYS } from './vapid-keys.js';
import { WEBHOOK_DELIVERIES } from './webhook-deliveries.js';
import { WEBHOOK_ENDPOINTS } from './webhook-endpoints.js';

/**
 * Every table declared in db/tables/: the tables hand-written SQL reads and writes. The two MikroORM maps
 * (stores, api_keys) are declared by their entities (db/entities/). test/db/tables.test.ts holds each
 * declaration to the migrated database, and fails on a migrated table that neither declares.
 */
export const TABLES = [
  CHAT_SETTINGS,
  CHECKOUT_EXPIRY_BUCKETS,
  CHECKOUT_SESSIONS,
  CONNECT_CODES,
  CONNECTION_UPDATES,
  CONNECTIONS,
  EXTERNAL_PRODUCTS,
  LANES,
  ORDER_EVENTS,
  ORDER_MESSAGES,
  ORDER_STATUS_HISTORY,
  ORDERS,
  OUTBOX,
  OWNER_PASSWORD_RESETS,
  OWNER_SESSIONS,
  OWNER_STORES,
  OWNERS,
  PRODUCTS,
  PUSH_SUBSCRIPTIONS,
  RATE_LIMIT_COUNTERS,
  SIGN_IN_THROTTLE,
  TRACKING_LOCKOUTS,
  VAPID_KEYS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
];
