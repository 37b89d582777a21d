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
 * Records order events with a snapshot of the order, in the caller's transaction, and hands each
 * non-backfill event to Temporal through the outbox. Backfill events are kept but never sent.
 */
export async function recordOrderEvents(em: EntityManager, events: NewOrderEvent[]): Promise<void> {
  if (events.length === 0) return;
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
  }));
  await em.execute(
    `insert into order_events (id, store_id, order_id, type, backfill, actor, connection_id, payload, created_at)
     select id, store_id, order_id, type, backfill, actor, connection_id, payload, clock_timestamp()
     from jsonb_to_recordset(?::jsonb) as x(id uuid, store_id uuid, order_id uuid, type text, backfill boolean, actor text, connection_id uuid, payload jsonb)`,
    [JSON.stringify(rows)],
  );
  // One wake-up per order and transaction: the order's sequencer reads the events from the database.
  const orders = new Map(rows.filter((r) => !r.backfill).map((r) => [r.order_id, r]));
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
