import { writeTransaction } from '../../db/transaction.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { wakeLane } from '../../db/lanes.js';
import { iso } from '../../domain/dates.js';
import { isUuid } from '../../domain/uuid.js';
import { signalWithStart } from '../../workflows/hand-off.js';
import { updatesQueued } from '../../workflows/connections/definitions.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import type { Order } from '../../contract/schemas/orders.js';
import { executeBound } from '../../db/bound.js';
import type { ConnectionRow } from '../../db/tables/connections.js';
import type { ConnectionUpdateRow } from '../../db/tables/connection-updates.js';

/** Statuses a connected shop is told about; cancelling stays the platform's business. */
const UPDATE_STATUSES = new Set(['shipped', 'out_for_delivery', 'completed']);

/** The Update object the plugin receives. */
export function presentUpdate(row: ConnectionUpdateRow) {
  return {
    id: row.id,
    order_id: row.order_id,
    external_id: row.external_id,
    number: row.number,
    status: row.status,
    tracking: row.tracking,
    tracking_page_url: row.tracking_page_url,
    comment: row.comment,
    updated_at: iso(row.updated_at),
  };
}

/**
 * After a service-side change of a connected shop's order (never one made through that connection:
 * no echo), queues an Update when the status moved to shipped/out_for_delivery/completed or the tracking
 * details changed. A newer update replaces a waiting one for the same order (only the latest is sent).
 */
export async function queueConnectionUpdate(
  em: EntityManager,
  change: {
    connectionId: string | null;
    editorConnectionId: string | null;
    before: { status: string; tracking: Order['tracking'] };
    after: Order;
    comment: string | null;
  },
): Promise<string | null> {
  const { after, before } = change;
  if (!change.connectionId || change.editorConnectionId === change.connectionId || !after.external_id) return null;
  const statusMoved = after.status !== before.status && UPDATE_STATUSES.has(after.status);
  const trackingChanged = (['number', 'courier', 'url'] as const).some((k) => after.tracking[k] !== before.tracking[k]);
  if (!statusMoved && !trackingChanged) return null;
  await executeBound(
    em,
    `update connection_updates set state = 'superseded', updated_at = now() where order_id = ? and state = 'waiting'`,
    [after.id],
  );
  const id = randomUUID();
  await executeBound(
    em,
    `insert into connection_updates (id, connection_id, order_id, external_id, number, status, tracking, tracking_page_url, comment)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
    [
      id,
      change.connectionId,
      after.id,
      after.external_id,
      after.order_number,
      UPDATE_STATUSES.has(after.status) ? after.status : null,
      JSON.stringify({ number: after.tracking.number, courier: after.tracking.courier, url: after.tracking.url }),
      after.tracking.page_url,
      change.comment,
    ],
  );
  await wakePush(em, change.connectionId);
  return id;
}

/**
 * Wakes the connection's push: a NOTIFY when its push activity is running, else a signal through the
 * outbox (starting the workflow if it is not running); db/lanes.ts.
 */
export async function wakePush(em: EntityManager, connectionId: string) {
  const [row] = await executeBound<Pick<ConnectionRow, 'store_id'>>(em, `select store_id from connections where id = ?`, [connectionId]);
  await wakeLane(
    em,
    signalWithStart(workflows.connectionPush, {
      workflowId: workflowIds.connectionPush(connectionId),
      args: [{ connectionId }],
      signal: updatesQueued,
      signalArgs: [],
      searchAttributes: { StoreId: row!.store_id, ConnectionId: connectionId },
      summary: `update push for connection ${connectionId}`,
    }),
  );
}

/** Waiting updates of a connection, oldest first (what pull returns; failed pushes stay pullable). */
export async function waitingUpdates(em: EntityManager, connectionId: string, limit: number): Promise<ConnectionUpdateRow[]> {
  return executeBound<ConnectionUpdateRow>(
    em,
    `select * from connection_updates where connection_id = ? and state = 'waiting' order by created_at, id limit ?`,
    [connectionId, limit],
  );
}

/** Acknowledges updates; counts only ids of this connection that were waiting. Acknowledged ones are never sent again. */
export async function acknowledge(
  em: EntityManager,
  connectionId: string,
  ack: { applied: string[]; failed: { id: string; error: string }[] },
): Promise<number> {
  const rows = [
    ...ack.applied.filter(isUuid).map((id) => ({ id, state: 'applied', error: null as string | null })),
    ...ack.failed.filter((f) => isUuid(f.id)).map((f) => ({ id: f.id, state: 'failed', error: f.error.slice(0, 500) })),
  ];
  if (rows.length === 0) return 0;
  const done = await executeBound<Pick<ConnectionUpdateRow, 'id'>>(
    em,
    `update connection_updates u set state = x.state, ack_error = x.error, acked_at = now(), updated_at = now()
     from (select distinct on (id) id, state, error from jsonb_to_recordset(?::jsonb) as r(id uuid, state text, error text)) x
     where u.id = x.id and u.connection_id = ? and u.state = 'waiting'
     returning u.id`,
    [JSON.stringify(rows), connectionId],
  );
  return done.length;
}

/** Every update of a connection for support, newest first; `failedOnly` keeps failed pushes and failed applies. */
export async function listUpdates(em: EntityManager, connectionId: string, failedOnly: boolean) {
  return executeBound<ConnectionUpdateRow>(
    em,
    `select * from connection_updates where connection_id = ?${failedOnly ? ` and (push_failed or state = 'failed')` : ''} order by created_at desc, id desc limit 500`,
    [connectionId],
  );
}

/** Sends waiting or failed updates again now (operator replay): resets their push state and wakes the push. */
export async function replayUpdates(em: EntityManager, connectionId: string, updateId?: string): Promise<number> {
  return writeTransaction(em, async (tx) => {
    const rows = await executeBound<Pick<ConnectionUpdateRow, 'id'>>(
      tx,
      `update connection_updates set state = 'waiting', push_failed = false, push_attempts = 0, next_push_at = now(), ack_error = null, updated_at = now()
       where connection_id = ? and (state = 'waiting' or state = 'failed')${updateId ? ' and id = ?' : ''} returning id`,
      updateId ? [connectionId, updateId] : [connectionId],
    );
    if (rows.length) await wakePush(tx, connectionId);
    return rows.length;
  });
}
