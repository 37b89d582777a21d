import { integer, text, timestamptz, table, type RowOf } from './columns.js';

/** The sign_in_throttle table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const SIGN_IN_THROTTLE = table('sign_in_throttle', {
  bucket: text(),
  failures: integer(),
  window_started_at: timestamptz(),
});

/** A sign_in_throttle row as PostgreSQL returns it. */
export type SignInThrottleRow = RowOf<typeof SIGN_IN_THROTTLE>;
