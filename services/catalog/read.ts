import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { Principal } from '../../contract/principal.js';
import { ApiError } from '../../contract/errors.js';
import type { ProductListQuery } from '../../contract/schemas/products.js';
import { keysetPage } from '../../db/keyset-page.js';
import { sellsCatalogue } from '../../domain/store-mode.js';
import { isUuid } from '../../domain/uuid.js';
import { PRODUCT_COLUMNS, presentProduct, type StoreFacts } from './product-row.js';
import type { ProductRow } from '../../db/tables/products.js';
import type { StoreRow } from '../../db/entities/store.js';

const STORE_COLUMNS = 'id, name, slug, currency, published, mode, standard_delivery_fee';

/** The store by id or slug, or null; `published` says whether its catalogue is open (sellsCatalogue: a tracking_only store's is not). */
export async function findStore(em: EntityManager, by: { id: string } | { slug: string }): Promise<StoreFacts | null> {
  const [column, value] = 'id' in by ? ['id', by.id] : ['slug', by.slug];
  const rows = await executeBound<StoreFacts & Pick<StoreRow, 'mode'>>(em, `select ${STORE_COLUMNS} from stores where ${column} = ?`, [
    value,
  ]);
  const row = rows[0];
  if (!row) return null;
  const { mode: _mode, ...facts } = row;
  return { ...facts, published: sellsCatalogue(row) };
}

/** The caller's store as its key's auth statement read it: no query of its own. */
export function callerStore(principal: Principal): StoreFacts {
  return {
    id: principal.storeId,
    name: principal.storeName,
    slug: principal.storeSlug,
    currency: principal.storeCurrency,
    published: principal.storePublished,
    standard_delivery_fee: principal.storeDeliveryFee,
  };
}

/** The caller's store, only when published: an unpublished store's catalogue answers 404 not_found. */
export function publishedStore(principal: Principal): StoreFacts {
  const store = callerStore(principal);
  if (!store.published) throw new ApiError('not_found', 'This store is not published; its catalogue is not available.');
  return store;
}

/** One live (not archived) product of this store, or null (unknown, malformed, archived or another store's id). */
export async function findLiveProduct(em: EntityManager, storeId: string, id: string): Promise<ProductRow | null> {
  if (!isUuid(id)) return null;
  const rows = await executeBound<ProductRow>(em, `select * from products where id = ? and store_id = ? and not archived`, [id, storeId]);
  return rows[0] ?? null;
}

/** A keyset page of live products, newest first by (created_at, id); the cursor only narrows this store's rows. */
export async function listProducts(em: EntityManager, store: StoreFacts, filter: ProductListQuery, publicUrl: string) {
  const where = ['store_id = ?', 'not archived'];
  const params: unknown[] = [store.id];
  if (filter.category) {
    where.push('categories @> array[?]::text[]');
    params.push(filter.category);
  }
  const page = await keysetPage<ProductRow>(em, {
    table: 'products',
    columns: PRODUCT_COLUMNS,
    where,
    params,
    cursor: filter.cursor,
    limit: filter.limit,
  });
  return { data: page.rows.map((row) => presentProduct(row, store, publicUrl)), has_more: page.hasMore, next_cursor: page.nextCursor };
}

/** Every category name of the store's live products, sorted, each once. */
export async function listCategories(em: EntityManager, storeId: string): Promise<string[]> {
  const rows = await executeBound<{ name: string }>(
    em,
    `select distinct unnest(categories) as name from products where store_id = ? and not archived order by 1`,
    [storeId],
  );
  return rows.map((r) => r.name);
}
