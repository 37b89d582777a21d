import { integer, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The tracking_lockouts table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const TRACKING_LOCKOUTS = table('tracking_lockouts', {
  store_id: uuid(),
  order_key: text(),
  wrong_count: integer(),
  locked_until: timestamptz().nullable(),
  last_wrong_at: timestamptz().defaulted(),
});

/** A tracking_lockouts row as PostgreSQL returns it. */
export type TrackingLockoutRow = RowOf<typeof TRACKING_LOCKOUTS>;
