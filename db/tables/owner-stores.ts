import { oneOf, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The owner_stores table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const OWNER_STORES = table('owner_stores', {
  owner_id: uuid(),
  store_id: uuid(),
  role: oneOf(['owner']).defaulted(),
  created_at: timestamptz().defaulted(),
});

/** An owner_stores row as PostgreSQL returns it. */
export type OwnerStoreRow = RowOf<typeof OWNER_STORES>;
