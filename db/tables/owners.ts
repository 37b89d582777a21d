import { text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The owners table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const OWNERS = table('owners', {
  id: uuid(),
  email: text(),
  password_hash: text(),
  created_at: timestamptz().defaulted(),
});

/** An owners row as PostgreSQL returns it. */
export type OwnerRow = RowOf<typeof OWNERS>;
