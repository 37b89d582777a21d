import { CONNECT_PLATFORMS } from '../../domain/connect-request.js';
import { oneOf, integer, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The connections table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CONNECTIONS = table('connections', {
  id: uuid(),
  store_id: uuid(),
  platform: oneOf(CONNECT_PLATFORMS),
  status: oneOf(['active', 'disconnected']).defaulted(),
  shop_url: text().nullable(),
  created_at: timestamptz().defaulted(),
  updated_at: timestamptz().defaulted(),
  shop_host: text().nullable(),
  site_url: text().nullable(),
  push_url: text().nullable(),
  plugin_version: text().nullable(),
  platform_version: text().nullable(),
  shop_name: text().nullable(),
  currency: text().nullable(),
  status_detail: text().nullable(),
  webhook_secret_sealed: text().nullable(),
  orders_synced: integer().defaulted(),
  last_order_at: timestamptz().nullable(),
  last_heartbeat_at: timestamptz().nullable(),
  disconnected_at: timestamptz().nullable(),
});

/** A connections row as PostgreSQL returns it. */
export type ConnectionRow = RowOf<typeof CONNECTIONS>;
