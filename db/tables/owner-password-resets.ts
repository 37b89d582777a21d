import { text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The owner_password_resets table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const OWNER_PASSWORD_RESETS = table('owner_password_resets', {
  id: text(),
  owner_id: uuid(),
  created_at: timestamptz().defaulted(),
  expires_at: timestamptz(),
  used_at: timestamptz().nullable(),
  store_id: uuid().nullable(),
});

/** An owner_password_resets row as PostgreSQL returns it. */
export type OwnerPasswordResetRow = RowOf<typeof OWNER_PASSWORD_RESETS>;
