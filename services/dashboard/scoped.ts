import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { ApiKey, ApiKeyRow } from '../../db/entities/api-key.js';
import { revokeKey } from '../stores.js';
import { replayDelivery } from '../webhooks/deliveries.js';
import { isUuid } from '../../domain/uuid.js';
import type { WebhookDeliveryRow } from '../../db/tables/webhook-deliveries.js';
import type { OrderStatusHistoryRow } from '../../db/tables/order-status-history.js';

// The shared services find keys and deliveries by id alone; the dashboard first proves the id is this store's.

/** Revokes a key of this store; null (and nothing changes) when the key is another store's or unknown. */
export async function revokeStoreKey(em: EntityManager, storeId: string, keyId: string): Promise<ApiKey | null> {
  if (!isUuid(keyId)) return null;
  const [row] = await executeBound<Pick<ApiKeyRow, 'id'>>(em, `select id from api_keys where id = ? and store_id = ?`, [keyId, storeId]);
  return row ? revokeKey(em, row.id) : null;
}

/** Sends a delivery of this store again ("send again"); null when it is another store's, unknown, or its endpoint is gone. */
export async function replayStoreDelivery(em: EntityManager, storeId: string, deliveryId: string) {
  if (!isUuid(deliveryId)) return null;
  const [row] = await executeBound<Pick<WebhookDeliveryRow, 'id'>>(em, `select id from webhook_deliveries where id = ? and store_id = ?`, [
    deliveryId,
    storeId,
  ]);
  return row ? replayDelivery(em, row.id, { metered: true }) : null;
}

export type HistoryLine = Pick<OrderStatusHistoryRow, 'status' | 'comment' | 'actor' | 'created_at'>;

/** An order's status history, oldest first (the caller has checked the order is the store's). */
export async function statusHistory(em: EntityManager, orderId: string): Promise<HistoryLine[]> {
  return executeBound<HistoryLine>(
    em,
    `select status, comment, actor, created_at from order_status_history where order_id = ? order by id`,
    [orderId],
  );
}

/** A few numbers for the store's overview page. */
export async function storeCounts(em: EntityManager, storeId: string) {
  const [row] = await executeBound<{ orders: number; keys: number; webhooks: number; connections: number }>(
    em,
    `select (select count(*)::int from orders where store_id = ? and not archived) as orders,
            (select count(*)::int from api_keys where store_id = ? and revoked_at is null and connection_id is null) as keys,
            (select count(*)::int from webhook_endpoints where store_id = ? and deleted_at is null) as webhooks,
            (select count(*)::int from connections where store_id = ? and status = 'active') as connections`,
    [storeId, storeId, storeId, storeId],
  );
  return row!;
}
