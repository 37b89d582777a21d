import { text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The push_subscriptions table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const PUSH_SUBSCRIPTIONS = table('push_subscriptions', {
  id: uuid(),
  store_id: uuid(),
  owner_id: uuid(),
  endpoint: text(),
  p256dh: text(),
  auth: text(),
  created_at: timestamptz().defaulted(),
});

/** A push_subscriptions row as PostgreSQL returns it. */
export type PushSubscriptionRow = RowOf<typeof PUSH_SUBSCRIPTIONS>;
