import { oneOf, bigint, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The order_messages table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const ORDER_MESSAGES = table('order_messages', {
  id: bigint().defaulted(),
  store_id: uuid(),
  order_id: uuid(),
  channel: oneOf(['push', 'chat']),
  occasion: text(),
  status: oneOf(['sending', 'sent', 'failed', 'skipped']),
  detail: text().nullable(),
  created_at: timestamptz().defaulted(),
  finished_at: timestamptz().nullable(),
});

/** An order_messages row as PostgreSQL returns it. */
export type OrderMessageRow = RowOf<typeof ORDER_MESSAGES>;
