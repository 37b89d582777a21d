import { boolean, text, textArray, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The webhook_endpoints table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const WEBHOOK_ENDPOINTS = table('webhook_endpoints', {
  id: uuid(),
  store_id: uuid(),
  url: text(),
  events: textArray(),
  secret_sealed: text(),
  active: boolean().defaulted(),
  created_at: timestamptz().defaulted(),
  deleted_at: timestamptz().nullable(),
  /** Set while the endpoint's circuit is open (docs/webhooks.md): since when, and its last failed attempt. */
  circuit_open_since: timestamptz().nullable(),
  circuit_failed_at: timestamptz().nullable(),
});

/** A webhook_endpoints row as PostgreSQL returns it. */
export type WebhookEndpointRow = RowOf<typeof WEBHOOK_ENDPOINTS>;
