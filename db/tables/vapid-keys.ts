import { smallint, text, timestamptz, table, type RowOf } from './columns.js';

/** The vapid_keys table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const VAPID_KEYS = table('vapid_keys', {
  id: smallint(),
  public_key: text(),
  private_key_sealed: text(),
  created_at: timestamptz().defaulted(),
});

/** A vapid_keys row as PostgreSQL returns it. */
export type VapidKeyRow = RowOf<typeof VAPID_KEYS>;
