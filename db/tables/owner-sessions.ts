import { text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The owner_sessions table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const OWNER_SESSIONS = table('owner_sessions', {
  id: text(),
  owner_id: uuid(),
  created_at: timestamptz().defaulted(),
  expires_at: timestamptz(),
  last_seen_at: timestamptz().defaulted(),
});

/** An owner_sessions row as PostgreSQL returns it. */
export type OwnerSessionRow = RowOf<typeof OWNER_SESSIONS>;
