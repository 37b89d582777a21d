import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from '../../contract/zod.js';
import { csvRecords } from '../../domain/csv.js';
import { insertProducts, NewProduct } from './create.js';

/** One INSERT per this many products; progress is reported after each. */
export const IMPORT_CHUNK = 100;

export interface ImportFailure {
  /** The item's place: its index in a JSON array, or its line in a CSV file (the header is line 1). */
  index: number;
  name: string | null;
  error: string;
}
export interface ImportResult {
  read: number;
  imported: number;
  failed: ImportFailure[];
}

/** A product's problems in one line, each named by its field path (or as the CLI's option when `optionOf` maps it). */
export function issueText(issues: z.core.$ZodIssue[], optionOf?: (field: string) => string): string {
  return issues
    .map((i) => {
      const path = i.path.map(String);
      const name = optionOf ? optionOf(path[0] ?? '') : path.join('.') || 'product';
      // zod's word for a missing value of a union (price: number or text) says too little.
      return `${name} ${i.message === 'Invalid input' ? 'is missing or not a valid value' : i.message}`;
    })
    .join('; ');
}

/**
 * Adds many products to a store: each item is checked on its own (NewProduct), bad ones are listed with
 * their problems and the rest are inserted, IMPORT_CHUNK per statement. `place` names an item in failures.
 */
export async function importProducts(
  em: EntityManager,
  storeId: string,
  items: unknown[],
  opts: { place?: (index: number) => number; onProgress?: (done: number, result: ImportResult) => void } = {},
): Promise<ImportResult> {
  const result: ImportResult = { read: items.length, imported: 0, failed: [] };
  for (let start = 0; start < items.length; start += IMPORT_CHUNK) {
    const valid: NewProduct[] = [];
    items.slice(start, start + IMPORT_CHUNK).forEach((item, i) => {
      const parsed = NewProduct.safeParse(item);
      if (parsed.success) return void valid.push(parsed.data);
      const name = (item as { name?: unknown } | null)?.name;
      result.failed.push({
        index: opts.place ? opts.place(start + i) : start + i,
        name: typeof name === 'string' ? name : null,
        error: issueText(parsed.error.issues),
      });
    });
    result.imported += (await insertProducts(em, storeId, valid)).length;
    opts.onProgress?.(Math.min(start + IMPORT_CHUNK, items.length), result);
  }
  return result;
}

/** The columns a product CSV may have (header names, any order, any case); others are refused by name. */
export const CSV_COLUMNS = [
  'name',
  'price',
  'compare_at_price',
  'delivery_fee',
  'category',
  'categories',
  'type',
  'stock',
  'sku',
  'description',
  'image_url',
  'archived',
] as const;

/**
 * A CSV file's products as NewProduct inputs: one row a product, a header naming the columns
 * (CSV_COLUMNS; `categories` separated by `|`, `archived` true/false/yes/no/1/0, a blank cell: not given).
 * An Error in words for a file that cannot be read as such a table.
 */
export function productsFromCsv(text: string): Record<string, unknown>[] {
  const { header, records } = csvRecords(text);
  if (!header.includes('name') || !header.includes('price'))
    throw new Error('The first line must name the columns, with at least name and price (e.g. name,price,stock,category).');
  const unknown = header.filter((h) => h && !CSV_COLUMNS.includes(h as never));
  if (unknown.length) throw new Error(`Unknown column(s): ${unknown.join(', ')}. Known: ${CSV_COLUMNS.join(', ')}.`);
  return records.map((r) => {
    const item: Record<string, unknown> = { ...r };
    if (r.stock !== undefined && /^\d+$/.test(r.stock)) item.stock = Number(r.stock);
    if (r.categories !== undefined)
      item.categories = r.categories
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
    if (r.archived !== undefined) {
      const yes = ['true', 'yes', '1'].includes(r.archived.toLowerCase());
      const no = ['false', 'no', '0'].includes(r.archived.toLowerCase());
      item.archived = yes ? true : no ? false : r.archived;
    }
    return item;
  });
}
