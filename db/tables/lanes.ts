import { text, timestamptz, table, type RowOf } from './columns.js';

/** The lanes table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const LANES = table('lanes', {
  workflow_id: text(),
  active_until: timestamptz().defaulted(),
});

/** A lanes row as PostgreSQL returns it. */
export type LaneRow = RowOf<typeof LANES>;
