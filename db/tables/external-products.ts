import { numeric, text, textArray, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The external_products table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const EXTERNAL_PRODUCTS = table('external_products', {
  connection_id: uuid(),
  external_id: text(),
  store_id: uuid(),
  name: text(),
  sku: text().nullable(),
  currency: text().nullable(),
  category: text().nullable(),
  description: text().nullable(),
  status: text().nullable(),
  price: numeric(15, 4).nullable(),
  stock: numeric(15, 4).nullable(),
  image_url: text().nullable(),
  url: text().nullable(),
  images: textArray().defaulted(),
  source_updated_at: timestamptz().nullable(),
  created_at: timestamptz().defaulted(),
  updated_at: timestamptz().defaulted(),
});

/** An external_products row as PostgreSQL returns it. */
export type ExternalProductRow = RowOf<typeof EXTERNAL_PRODUCTS>;
