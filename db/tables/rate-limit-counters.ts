import { integer, text, timestamptz, table, type RowOf } from './columns.js';

/** The rate_limit_counters table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const RATE_LIMIT_COUNTERS = table('rate_limit_counters', {
  bucket: text(),
  window_start: timestamptz(),
  count: integer(),
});

/** A rate_limit_counters row as PostgreSQL returns it. */
export type RateLimitCounterRow = RowOf<typeof RATE_LIMIT_COUNTERS>;
