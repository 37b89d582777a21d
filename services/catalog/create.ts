import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { z } from '../../contract/zod.js';
import { duplicateVariant, PRODUCT_TYPES } from '../../domain/catalog.js';
import { toNumericString, toUnits } from '../../domain/money.js';
import { cleanMultiline, cleanText } from '../../domain/text.js';
import type { ProductRow } from '../../db/tables/products.js';

/** An amount as a number or a decimal string ("19.99"), at most 4 decimals, not negative; exact units. */
const Money = z.union([z.number(), z.string()]).transform((value, ctx) => {
  try {
    const units = toUnits(value);
    if (units < 0n) ctx.addIssue({ code: 'custom', message: 'must not be negative' });
    return units;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});
const ImageUrl = z
  .string()
  .max(100_000)
  .refine((u) => /^https?:\/\/[^\s]+$/i.test(u) || /^data:image\/[a-z+.-]+[;,]/i.test(u), 'must be an http(s) URL or a data:image URL');
const Name = z
  .string()
  .max(200)
  .transform((s) => cleanText(s) ?? '');
const Stock = z.int().min(0).max(1_000_000_000).nullish();

/** A product as an operator gives it (CLI, JSON import, demo data). */
export const NewProduct = z
  .object({
    name: z
      .string()
      .max(500)
      .transform((s) => cleanText(s) ?? '')
      .refine((s) => s !== '', 'must not be empty'),
    description: z.string().max(100_000).nullish(),
    price: Money,
    compare_at_price: Money.nullish(),
    delivery_fee: Money.nullish().describe('null: the store standard fee; 0: free shipping'),
    image_url: ImageUrl.nullish(),
    images: z.array(ImageUrl).max(50).default([]),
    category: Name.nullish(),
    categories: z.array(Name).max(50).default([]),
    type: z.enum(PRODUCT_TYPES, { error: `must be ${PRODUCT_TYPES.join(', ')}` }).default('physical'),
    stock: Stock,
    sku: z.string().max(255).nullish(),
    variants: z
      .array(
        z.object({
          options: z.record(Name, Name).refine((o) => Object.keys(o).length > 0, 'must name at least one option'),
          price: Money.optional(),
          stock: Stock,
          sku: z.string().max(255).nullish(),
        }),
      )
      .max(100)
      .default([])
      .refine((v) => duplicateVariant(v) < 0, 'has two variants with the same options'),
    archived: z.boolean().default(false),
  })
  .strict();
export type NewProduct = z.output<typeof NewProduct>;

/** The row values of a validated product: primary category listed in categories, digital and service delivered free by default. */
export function toRow(storeId: string, p: NewProduct) {
  const categories = [...new Set([p.category, ...p.categories].filter((c): c is string => Boolean(c)))];
  const deliveryFee = p.delivery_fee !== undefined ? p.delivery_fee : p.type === 'physical' ? null : 0n;
  return {
    id: randomUUID(),
    store_id: storeId,
    name: p.name,
    description: cleanMultiline(p.description) ?? '',
    price: toNumericString(p.price),
    compare_at_price: p.compare_at_price == null ? null : toNumericString(p.compare_at_price),
    delivery_fee: deliveryFee === null ? null : toNumericString(deliveryFee),
    image_url: p.image_url ?? null,
    images: p.images.length ? p.images : p.image_url ? [p.image_url] : [],
    category: p.category || categories[0] || null,
    categories,
    type: p.type,
    // With variants the stock is counted per variant.
    stock: p.variants.length ? null : (p.stock ?? null),
    variants: p.variants.map((v) => ({
      options: v.options,
      price: toNumericString(v.price ?? p.price),
      stock: v.stock ?? null,
      sku: cleanText(v.sku) ?? null,
    })),
    sku: cleanText(p.sku) ?? null,
    archived: p.archived,
  };
}

const COLUMNS = `id uuid, store_id uuid, name text, description text, price numeric, compare_at_price numeric, delivery_fee numeric,
  image_url text, images text[], category text, categories text[], type text, stock integer, variants jsonb, sku text, archived boolean`;

/** Inserts validated products of one store in one statement; returns the rows in input order (later ones newer). */
export async function insertProducts(em: EntityManager, storeId: string, products: NewProduct[]): Promise<ProductRow[]> {
  if (products.length === 0) return [];
  const rows = products.map((p) => toRow(storeId, p));
  const names = COLUMNS.split(',').map((c) => c.trim().split(' ')[0]!);
  const inserted = await executeBound<ProductRow>(
    em,
    `insert into products (${names.join(', ')}, created_at, updated_at)
     select ${names.map((n) => `x.${n}`).join(', ')}, clock_timestamp(), clock_timestamp()
     from jsonb_to_recordset(?::jsonb) as x(${COLUMNS})
     returning *`,
    [JSON.stringify(rows)],
  );
  const byId = new Map(inserted.map((r) => [r.id, r]));
  return rows.map((r) => byId.get(r.id)!);
}
