import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { isUuid } from '../../domain/uuid.js';
import { toRow, type NewProduct } from './create.js';
import { PRODUCT_COLUMNS } from './product-row.js';
import type { ProductRow } from '../../db/tables/products.js';

/** How many products the owner's list shows at most (live ones first). */
export const OWNER_LIST_LIMIT = 500;

/** The store's products for its owner, archived ones included: live first, then newest first. */
export async function listStoreProducts(em: EntityManager, storeId: string): Promise<{ rows: ProductRow[]; total: number }> {
  const rows = await executeBound<ProductRow>(
    em,
    `select ${PRODUCT_COLUMNS} from products where store_id = ? order by archived, created_at desc, id desc limit ?`,
    [storeId, OWNER_LIST_LIMIT],
  );
  const [count] = await executeBound<{ n: number }>(em, `select count(*)::int as n from products where store_id = ?`, [storeId]);
  return { rows, total: count!.n };
}

/** A product of this store, archived or not; null for another store's, an unknown or a malformed id. */
export async function findStoreProduct(em: EntityManager, storeId: string, id: string): Promise<ProductRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await executeBound<ProductRow>(em, `select ${PRODUCT_COLUMNS} from products where id = ? and store_id = ?`, [id, storeId]);
  return row ?? null;
}

/** Replaces a product's fields with a validated product (same rules as a new one); false when it is not this store's. */
export async function updateProduct(em: EntityManager, storeId: string, id: string, product: NewProduct): Promise<boolean> {
  const r = toRow(storeId, product);
  const rows = await executeBound<Pick<ProductRow, 'id'>>(
    em,
    `update products set name = ?, description = ?, price = ?::numeric, compare_at_price = ?::numeric, delivery_fee = ?::numeric,
       image_url = ?, images = array(select jsonb_array_elements_text(?::jsonb)), category = ?,
       categories = array(select jsonb_array_elements_text(?::jsonb)), type = ?, stock = ?, variants = ?::jsonb, sku = ?,
       archived = ?, updated_at = clock_timestamp()
     where id = ? and store_id = ? returning id`,
    [
      r.name,
      r.description,
      r.price,
      r.compare_at_price,
      r.delivery_fee,
      r.image_url,
      JSON.stringify(r.images),
      r.category,
      JSON.stringify(r.categories),
      r.type,
      r.stock,
      JSON.stringify(r.variants),
      r.sku,
      r.archived,
      id,
      storeId,
    ],
  );
  return rows.length > 0;
}

/** Archives a product (gone from the catalogue and checkout, kept for orders) or brings it back; false when it is not this store's. */
export async function setProductArchived(em: EntityManager, storeId: string, id: string, archived: boolean): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await executeBound<Pick<ProductRow, 'id'>>(
    em,
    `update products set archived = ?, updated_at = clock_timestamp() where id = ? and store_id = ? returning id`,
    [archived, id, storeId],
  );
  return rows.length > 0;
}
