import type { Product } from '../../contract/schemas/products.js';
import { productPageUrl } from '../../contract/urls.js';
import type { CartProduct } from '../../domain/cart.js';
import { isInStock, shownStock, type Variant } from '../../domain/catalog.js';
import { toNumericString, toUnits } from '../../domain/money.js';
import type { ProductRow, StoredVariant } from '../../db/tables/products.js';
import type { StoreRow } from '../../db/entities/store.js';

/**
 * The columns of a ProductRow, for reads that name them (prepared statements never select `*`). The text
 * arrays come as JSON: JSON.parse reads them several times faster than pg's text[] parser, the same values.
 */
export const PRODUCT_COLUMNS =
  'id, store_id, name, description, price, compare_at_price, delivery_fee, image_url, to_json(images) as images, category, ' +
  'to_json(categories) as categories, type, stock, variants, sku, archived, created_at, updated_at';

/** The store facts a product is shown and sold with. */
export type StoreFacts = Pick<StoreRow, 'id' | 'name' | 'slug' | 'currency' | 'published' | 'standard_delivery_fee'>;

// A numeric(15,4) column's text, or a stored variant's price (toNumericString), is an exact decimal of at most
// 4 places: Number() of it is the very double fromUnits(toUnits(text)) gives, without the bigint round trip.
const money = (text: string) => Number(text);
const moneyOrNull = (text: string | null) => (text === null ? null : money(text));

/** Variants in money units, for the domain rules. */
export const variantsOf = (row: Pick<ProductRow, 'variants'>): Variant[] =>
  row.variants.map((v) => ({ options: v.options, price: toUnits(v.price), stock: v.stock, sku: v.sku }));

/** Variants back to their stored form. */
export const storedVariants = (variants: Variant[]): StoredVariant[] =>
  variants.map((v) => ({ options: v.options, price: toNumericString(v.price), stock: v.stock, sku: v.sku }));

/** The API's product object for a row of a store. */
export function presentProduct(row: ProductRow, store: Pick<StoreFacts, 'slug' | 'currency'>, publicUrl: string): Product {
  return {
    id: row.id,
    object: 'product',
    name: row.name,
    description: row.description,
    price: money(row.price),
    compare_at_price: moneyOrNull(row.compare_at_price),
    delivery_fee: moneyOrNull(row.delivery_fee),
    currency: store.currency,
    image_url: row.image_url ?? row.images[0] ?? null,
    images: row.images,
    category: row.category,
    categories: row.categories,
    type: row.type,
    in_stock: isInStock(row),
    stock: shownStock(row),
    variants: row.variants.map((v) => ({ options: v.options, price: money(v.price), stock: v.stock, sku: v.sku })),
    url: productPageUrl({ publicUrl }, store.slug, row.id),
  };
}

/** The product as the cart rules need it. */
export function toCartProduct(row: ProductRow): CartProduct {
  return {
    id: row.id,
    name: row.name,
    archived: row.archived,
    price: toUnits(row.price),
    deliveryFee: row.delivery_fee === null ? null : toUnits(row.delivery_fee),
    stock: row.stock,
    variants: variantsOf(row),
    sku: row.sku,
    imageUrl: row.image_url ?? row.images[0] ?? null,
  };
}
