import { boolean, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The chat_settings table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CHAT_SETTINGS = table('chat_settings', {
  store_id: uuid(),
  enabled: boolean().defaulted(),
  base_url: text(),
  api_version: text(),
  phone_number_id: text(),
  token_sealed: text(),
  template_name: text().nullable(),
  template_language: text().defaulted(),
  shipped_template_name: text().nullable(),
  updated_at: timestamptz().defaulted(),
});

/** A chat_settings row as PostgreSQL returns it. */
export type ChatSettingsRow = RowOf<typeof CHAT_SETTINGS>;
