import { oneOf, integer, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The webhook_deliveries table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const WEBHOOK_DELIVERIES = table('webhook_deliveries', {
  id: uuid(),
  store_id: uuid(),
  endpoint_id: uuid(),
  event_id: uuid(),
  event_type: text(),
  order_id: uuid(),
  replay_of: uuid().nullable(),
  status: oneOf(['pending', 'sending', 'delivered', 'failed', 'cancelled']).defaulted(),
  response_status: integer().nullable(),
  error: text().nullable(),
  duration_ms: integer().nullable(),
  created_at: timestamptz().defaulted(),
  attempted_at: timestamptz().nullable(),
  finished_at: timestamptz().nullable(),
  workflow_id: text().nullable(),
  run_id: text().nullable(),
  activity_id: text().nullable(),
});

/** A webhook_deliveries row as PostgreSQL returns it. */
export type WebhookDeliveryRow = RowOf<typeof WEBHOOK_DELIVERIES>;
