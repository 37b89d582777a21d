import { decodeCursor } from '../../domain/cursor.js';
import { PRODUCT_TYPE_MEANINGS, PRODUCT_TYPES } from '../../domain/catalog.js';
import { z } from '../zod.js';

const typeWords = Object.entries(PRODUCT_TYPE_MEANINGS)
  .map(([type, meaning]) => `${type}: ${meaning}`)
  .join(' ');

export const Variant = z
  .object({
    options: z.record(z.string(), z.string()).openapi({ description: 'Option name to value, e.g. {"Size": "M"}.', example: { Size: 'M' } }),
    price: z.number(),
    stock: z.number().nullable().openapi({ description: 'null means unlimited.' }),
    sku: z.string().nullable(),
  })
  .openapi('ProductVariant');

export const Product = z
  .object({
    id: z.uuid(),
    object: z.literal('product'),
    name: z.string(),
    description: z.string(),
    price: z.number().openapi({ description: 'The price the storefront shows, in the store currency.', example: 19.99 }),
    compare_at_price: z.number().nullable(),
    delivery_fee: z.number().nullable().openapi({
      description: "null: the store's standard fee applies; 0: free shipping. An order pays one fee, the highest among its products.",
    }),
    currency: z.string().openapi({ description: 'The store currency.' }),
    image_url: z.string().nullable(),
    images: z.array(z.string()),
    category: z.string().nullable().openapi({ description: 'The primary category; also listed in categories.' }),
    categories: z.array(z.string()),
    type: z.enum(PRODUCT_TYPES).openapi({ description: typeWords }),
    in_stock: z.boolean().openapi({ description: 'Without variants: stock null or above 0. With variants: any variant so.' }),
    stock: z
      .number()
      .nullable()
      .openapi({ description: 'null means unlimited; with variants, the sum of theirs (null when any is unlimited).' }),
    variants: z.array(Variant),
    url: z.url().openapi({ description: 'The product page on the storefront.' }),
  })
  .openapi('Product');
export type Product = z.input<typeof Product>;

export const ProductEnvelope = z.object({ product: Product }).openapi('ProductEnvelope');
export const ProductList = z
  .object({ data: z.array(Product), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi('ProductList');
export const CategoryList = z.object({ data: z.array(z.string()) }).openapi('CategoryList');

export const ProductListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: 'Products per page, 1 to 100 (default 25).' }),
    cursor: z
      .string()
      .optional()
      .refine((c) => c === undefined || decodeCursor(c) !== null, 'is not a cursor this API returned')
      .openapi({ description: 'The next_cursor of the previous page; opaque, never built by the client.' }),
    category: z.string().min(1).max(200).optional().openapi({ description: 'A name from GET /categories (exact match).' }),
  })
  .strict();
export type ProductListQuery = z.output<typeof ProductListQuery>;

export const ProductIdParams = z.object({ id: z.string().openapi({ param: { description: 'The uuid of the product.' } }) });
