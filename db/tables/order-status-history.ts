import { bigint, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The order_status_history table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const ORDER_STATUS_HISTORY = table('order_status_history', {
  id: bigint().defaulted(),
  order_id: uuid(),
  status: text(),
  comment: text().nullable(),
  actor: text(),
  created_at: timestamptz().defaulted(),
});

/** An order_status_history row as PostgreSQL returns it. */
export type OrderStatusHistoryRow = RowOf<typeof ORDER_STATUS_HISTORY>;
