import { executeBound } from '../../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { storeUrls } from '../../contract/urls.js';
import { isoOrNull } from '../../domain/dates.js';
import type { ConnectionRow } from '../../db/tables/connections.js';
import type { StoreRow } from '../../db/entities/store.js';

/** The connected store as the plugin sees it. */
export async function connectedStore(em: EntityManager, storeId: string, publicUrl: string) {
  const [store] = await executeBound<Pick<StoreRow, 'id' | 'name' | 'slug'>>(em, `select id, name, slug from stores where id = ?`, [
    storeId,
  ]);
  return {
    id: store!.id,
    name: store!.name,
    slug: store!.slug,
    tracking_url: storeUrls({ publicUrl }, store!.slug).tracking_url,
    dashboard_url: `${publicUrl}/dashboard/stores/${store!.id}`,
  };
}

/** The Connection object, with orders_synced and last_order_at read from the orders themselves. */
export async function presentConnection(em: EntityManager, row: ConnectionRow) {
  const [stats] = await executeBound<{ n: number; last: Date | null }>(
    em,
    `select count(*)::int as n, max(created_at) as last from orders where connection_id = ?`,
    [row.id],
  );
  return {
    id: row.id,
    platform: row.platform,
    status: row.status,
    status_detail: row.status_detail,
    shop_url: row.shop_url,
    orders_synced: stats!.n,
    last_order_at: isoOrNull(stats!.last),
  };
}

/** A connection of the store by id, or null. */
export async function findConnection(em: EntityManager, id: string): Promise<ConnectionRow | null> {
  const rows = await executeBound<ConnectionRow>(em, `select * from connections where id = ?`, [id]);
  return rows[0] ?? null;
}
