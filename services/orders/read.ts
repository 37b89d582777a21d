import type { EntityManager } from '@mikro-orm/postgresql';
import { keysetPage } from '../../db/keyset-page.js';
import { isUuid } from '../../domain/uuid.js';
import type { OrderSource, OrderStatus } from '../../domain/order-status.js';
import { presentOrder } from './present.js';
import { ORDERS, type OrderRow } from '../../db/tables/orders.js';
import { executeBound } from '../../db/bound.js';

/** One order of this store, or null (unknown, malformed or another store's id all look the same). */
export async function findOrderRow(em: EntityManager, storeId: string, id: string, lock = false): Promise<OrderRow | null> {
  if (!isUuid(id)) return null;
  const rows = await executeBound<OrderRow>(em, `select * from orders where id = ? and store_id = ?${lock ? ' for update' : ''}`, [
    id,
    storeId,
  ]);
  return rows[0] ?? null;
}

export interface OrderListFilter {
  limit: number;
  cursor?: string | undefined;
  status?: OrderStatus | undefined;
  source?: OrderSource | undefined;
  external_id?: string | undefined;
  updated_since?: string | undefined;
  created_since?: string | undefined;
  include_archived?: 'true' | undefined;
}

/** Every orders column, named: the page runs as a prepared statement, and a prepared `*` would break when a migration adds a column. */
const ORDER_COLUMNS = Object.keys(ORDERS.columns).join(', ');

/**
 * A keyset page, newest first by (created_at, id); the cursor only ever narrows this store's rows. Prepared
 * (one statement per combination of filters): sent as text, PostgreSQL parsed and planned the page at every call.
 */
export async function listOrders(em: EntityManager, storeId: string, filter: OrderListFilter, publicUrl: string) {
  const where = ['store_id = ?'];
  const params: unknown[] = [storeId];
  if (!filter.include_archived) where.push('not archived');
  if (filter.status) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.source) {
    where.push('source = ?');
    params.push(filter.source);
  }
  if (filter.external_id) {
    where.push('external_id = ?');
    params.push(filter.external_id);
  }
  if (filter.updated_since) {
    where.push('updated_at >= ?');
    params.push(filter.updated_since);
  }
  if (filter.created_since) {
    where.push('created_at >= ?');
    params.push(filter.created_since);
  }
  const page = await keysetPage<OrderRow>(em, {
    table: 'orders',
    where,
    params,
    cursor: filter.cursor,
    limit: filter.limit,
    columns: ORDER_COLUMNS,
  });
  return { data: page.rows.map((row) => presentOrder(row, publicUrl)), has_more: page.hasMore, next_cursor: page.nextCursor };
}
