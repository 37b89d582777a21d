import { oneOf, boolean, integer, jsonb, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The tracking an update carries, as connection_updates.tracking stores it. */
export interface StoredTracking {
  number: string | null;
  courier: string | null;
  url: string | null;
}

/** The connection_updates table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CONNECTION_UPDATES = table('connection_updates', {
  id: uuid(),
  connection_id: uuid(),
  order_id: uuid(),
  external_id: text(),
  number: text().nullable(),
  /** The statuses a connected shop is told about (cancelling stays the platform's business). */
  status: oneOf(['shipped', 'out_for_delivery', 'completed']).nullable(),
  tracking: jsonb<StoredTracking>(),
  tracking_page_url: text(),
  comment: text().nullable(),
  state: oneOf(['waiting', 'applied', 'failed', 'superseded']).defaulted(),
  ack_error: text().nullable(),
  push_attempts: integer().defaulted(),
  push_failed: boolean().defaulted(),
  last_push_error: text().nullable(),
  next_push_at: timestamptz().defaulted(),
  created_at: timestamptz().defaulted(),
  updated_at: timestamptz().defaulted(),
  acked_at: timestamptz().nullable(),
});

/** A connection_updates row as PostgreSQL returns it. */
export type ConnectionUpdateRow = RowOf<typeof CONNECTION_UPDATES>;
