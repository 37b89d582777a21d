import { timestamptz, uuid, table, type RowOf } from './columns.js';

/** The checkout_expiry_buckets table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CHECKOUT_EXPIRY_BUCKETS = table('checkout_expiry_buckets', {
  store_id: uuid(),
  ends_at: timestamptz(),
});

/** A checkout_expiry_buckets row as PostgreSQL returns it. */
export type CheckoutExpiryBucketRow = RowOf<typeof CHECKOUT_EXPIRY_BUCKETS>;
