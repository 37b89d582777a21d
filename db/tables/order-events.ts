import type { Order } from '../../contract/schemas/orders.js';
import { boolean, integer, jsonb, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The order_events table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const ORDER_EVENTS = table('order_events', {
  id: uuid(),
  store_id: uuid(),
  order_id: uuid(),
  type: text(),
  backfill: boolean().defaulted(),
  actor: text(),
  connection_id: uuid().nullable(),
  /** The order as the event's webhook body carries it. */
  payload: jsonb<Order>(),
  created_at: timestamptz().defaulted(),
  dispatched_at: timestamptz().nullable(),
  dispatch_count: integer().defaulted(),
  traceparent: text().nullable(),
});

/** An order_events row as PostgreSQL returns it. */
export type OrderEventRow = RowOf<typeof ORDER_EVENTS>;
