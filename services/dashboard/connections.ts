import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { connectionAllowance, createConnection, planLimitReached, type Platform } from '../connections/codes.js';
import { disconnect } from '../connections/connection.js';
import type { ConnectionRow } from '../../db/tables/connections.js';
import { isUuid } from '../../domain/uuid.js';

/** The store's connected shops, active first, newest first, with their waiting and failed update counts. */
export async function listStoreConnections(em: EntityManager, storeId: string) {
  return executeBound<ConnectionRow & { waiting: number; failed: number }>(
    em,
    `select c.*,
       (select count(*)::int from connection_updates u where u.connection_id = c.id and u.state = 'waiting') as waiting,
       (select count(*)::int from connection_updates u where u.connection_id = c.id and (u.push_failed or u.state = 'failed')) as failed
     from connections c where c.store_id = ? order by (c.status = 'active') desc, c.created_at desc, c.id`,
    [storeId],
  );
}

/** A connection of this store; null for another store's, an unknown or a malformed id. */
export async function findStoreConnection(em: EntityManager, storeId: string, id: string): Promise<ConnectionRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await executeBound<ConnectionRow>(em, `select * from connections where id = ? and store_id = ?`, [id, storeId]);
  return row ?? null;
}

/**
 * The spec's manual alternative: an active connection whose key and signing secret are shown once.
 * Refused with 409 conflict when the store is at its plan's limit (checked under the store's row lock).
 */
export async function createManualConnection(
  em: EntityManager,
  input: { storeId: string; platform: Platform; siteUrl: string; shopName: string | null; secretsKey: Buffer },
) {
  return writeTransaction(em, async (tx) => {
    await executeBound(tx, `select id from stores where id = ? for update`, [input.storeId]);
    const allowance = await connectionAllowance(tx, input.storeId);
    if (allowance.full) throw planLimitReached(allowance);
    return createConnection(tx, { ...input });
  });
}

/** Disconnects from the dashboard: same effect as the plugin's disconnect (keys stop, pushes stop, orders stay). */
export async function disconnectFromDashboard(em: EntityManager, connectionId: string): Promise<void> {
  await disconnect(em, connectionId);
  await executeBound(em, `update connections set status_detail = 'disconnected from the dashboard' where id = ?`, [connectionId]);
}
