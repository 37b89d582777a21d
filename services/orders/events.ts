import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Order } from '../../api/schemas/orders.js';
import { enqueueHandOffs } from '../../db/outbox.js';
import type { OrderEventType } from '../../domain/order-events.js';
import { workflowIds } from '../../workflows/definitions.js';

export interface NewOrderEvent {
  storeId: string;
  order: Order;
  type: OrderEventType;
  backfill: boolean;
  /** Who caused it ('key:<id>', 'connection:<id>', 'dashboard', 'checkout'). */
  actor: string;
  /** The connection whose key made the change: its own shop must not get it back (no echo). */
  connectionId: string | null;
}

/**
 * Records order events with a snapshot of the order, in the caller's transaction, and hands to Temporal
 * (through the outbox) those that some live webhook endpoint of the store subscribes to. Backfill events,
 * and events nobody subscribes to, are kept but never sent: they are recorded as already dispatched.
 */
export async function recordOrderEvents(em: EntityManager, events: NewOrderEvent[]): Promise<void> {
  if (events.length === 0) return;
  const subscribed = await subscribedKinds(em, events[0]!.storeId);
  const rows = events.map((e) => ({
    id: randomUUID(),
    store_id: e.storeId,
    order_id: e.order.id,
    type: e.type,
    backfill: e.backfill,
    actor: e.actor,
    connection_id: e.connectionId,
    payload: e.order,
    summary: `${e.type} for order ${e.order.order_number ?? e.order.external_id ?? e.order.id}`,
    handed: !e.backfill && (subscribed.has('*') || subscribed.has(e.type)),
  }));
  await em.execute(
    `insert into order_events (id, store_id, order_id, type, backfill, actor, connection_id, payload, created_at, dispatched_at)
     select id, store_id, order_id, type, backfill, actor, connection_id, payload, clock_timestamp(), case when handed then null else now() end
     from jsonb_to_recordset(?::jsonb) as x(id uuid, store_id uuid, order_id uuid, type text, backfill boolean, actor text, connection_id uuid, payload jsonb, handed boolean)`,
    [JSON.stringify(rows)],
  );
  // One wake-up per order and transaction: the order's sequencer reads the events from the database.
  const orders = new Map(rows.filter((r) => r.handed).map((r) => [r.order_id, r]));
  await enqueueHandOffs(
    em,
    [...orders.values()].map((r) => ({
      workflowType: 'orderEventsWorkflow',
      workflowId: workflowIds.orderEvents(r.order_id),
      args: [{ orderId: r.order_id, storeId: r.store_id }],
      signal: { name: 'orderEventsArrived', args: [] },
      searchAttributes: { StoreId: r.store_id, OrderId: r.order_id },
      summary: r.summary.replace(/^\S+ for /, 'events of '),
    })),
  );
}

/** Event kinds the store's live webhook endpoints subscribe to ('*' for all). */
async function subscribedKinds(em: EntityManager, storeId: string): Promise<Set<string>> {
  const rows = await em.execute<{ kind: string }[]>(
    `select distinct unnest(events) as kind from webhook_endpoints where store_id = ? and active and deleted_at is null`,
    [storeId],
  );
  return new Set(rows.map((r) => r.kind));
}

/** Appends status history lines (status, comment, who, when) for the tracking page. */
export async function recordStatusHistory(
  em: EntityManager,
  lines: { orderId: string; status: string; comment: string | null; actor: string }[],
): Promise<void> {
  if (lines.length === 0) return;
  await em.execute(
    `insert into order_status_history (order_id, status, comment, actor, created_at)
     select order_id, status, comment, actor, clock_timestamp() from jsonb_to_recordset(?::jsonb) as x(order_id uuid, status text, comment text, actor text)`,
    [JSON.stringify(lines.map((l) => ({ order_id: l.orderId, status: l.status, comment: l.comment, actor: l.actor })))],
  );
}
