import { PRODUCT_TYPES, type VariantOptions } from '../../domain/catalog.js';
import { oneOf, boolean, integer, jsonb, numeric, text, textArray, timestamptz, uuid, table, type RowOf } from './columns.js';

/** A variant as products.variants stores it (price as an exact numeric string). */
export interface StoredVariant {
  options: VariantOptions;
  price: string;
  stock: number | null;
  sku: string | null;
}

/** The products table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const PRODUCTS = table('products', {
  id: uuid(),
  store_id: uuid(),
  name: text(),
  description: text().defaulted(),
  price: numeric(15, 4),
  compare_at_price: numeric(15, 4).nullable(),
  delivery_fee: numeric(15, 4).nullable(),
  image_url: text().nullable(),
  images: textArray().defaulted(),
  category: text().nullable(),
  categories: textArray().defaulted(),
  type: oneOf(PRODUCT_TYPES).defaulted(),
  stock: integer().nullable(),
  variants: jsonb<StoredVariant[]>().defaulted(),
  sku: text().nullable(),
  archived: boolean().defaulted(),
  created_at: timestamptz().defaulted(),
  updated_at: timestamptz().defaulted(),
});

/** A products row as PostgreSQL returns it. */
export type ProductRow = RowOf<typeof PRODUCTS>;
