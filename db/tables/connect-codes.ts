import { CONNECT_PLATFORMS } from '../../domain/connect-request.js';
import { oneOf, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The connect_codes table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CONNECT_CODES = table('connect_codes', {
  id: uuid(),
  code_hash: text(),
  store_id: uuid(),
  platform: oneOf(CONNECT_PLATFORMS),
  site_host: text(),
  site_url: text(),
  shop_name: text().nullable(),
  currency: text().nullable(),
  created_at: timestamptz().defaulted(),
  expires_at: timestamptz(),
  used_at: timestamptz().nullable(),
  expired_at: timestamptz().nullable(),
  connection_id: uuid().nullable(),
});

/** A connect_codes row as PostgreSQL returns it. */
export type ConnectCodeRow = RowOf<typeof CONNECT_CODES>;
