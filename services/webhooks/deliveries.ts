import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueHandOffs } from '../../db/outbox.js';
import { workflowIds } from '../../workflows/definitions.js';

export interface PlannedDelivery {
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  storeId: string;
  orderId: string;
}

/**
 * Takes an order's events that were not handed over yet (oldest first), marks them dispatched, and
 * plans one delivery per subscribed, active endpoint. Returns every delivery of the order still
 * pending, in event order, so a retried call after a crash returns the same work again.
 */
export async function planOrderDeliveries(em: EntityManager, orderId: string): Promise<PlannedDelivery[]> {
  return em.transactional(async (tx) => {
    await tx.execute(
      `with taken as (
         update order_events set dispatched_at = now(), dispatch_count = dispatch_count + 1
         where order_id = ? and dispatched_at is null and not backfill
         returning id, store_id, order_id, type, created_at
       )
       insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, created_at)
       select gen_random_uuid(), t.store_id, e.id, t.id, t.type, t.order_id, t.created_at
       from taken t join webhook_endpoints e
         on e.store_id = t.store_id and e.active and e.deleted_at is null and (t.type = any(e.events) or '*' = any(e.events))
       on conflict (event_id, endpoint_id) where replay_of is null do nothing`,
      [orderId],
    );
    const rows = await tx.execute<{ id: string; event_id: string; event_type: string; endpoint_id: string; store_id: string; order_id: string }[]>(
      `select d.id, d.event_id, d.event_type, d.endpoint_id, d.store_id, d.order_id
       from webhook_deliveries d join order_events ev on ev.id = d.event_id
       where d.order_id = ? and d.status = 'pending' and d.replay_of is null
       order by ev.created_at, ev.id, d.endpoint_id`,
      [orderId],
    );
    return rows.map((r) => ({ deliveryId: r.id, eventId: r.event_id, eventType: r.event_type, endpointId: r.endpoint_id, storeId: r.store_id, orderId: r.order_id }));
  });
}

export interface ClaimedDelivery {
  id: string;
  url: string;
  secretSealed: string;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  payload: unknown;
}

/** Moves a pending delivery to sending, only while its endpoint is live; null means there is nothing to send. */
export async function claimDelivery(em: EntityManager, deliveryId: string): Promise<ClaimedDelivery | null> {
  const rows = await em.execute<{ id: string; url: string; secret_sealed: string; event_id: string; type: string; created_at: Date; payload: unknown }[]>(
    `with claimed as (
       update webhook_deliveries d set status = 'sending', attempted_at = now()
       from webhook_endpoints e
       where d.id = ? and d.status = 'pending' and e.id = d.endpoint_id and e.active and e.deleted_at is null
       returning d.id, d.event_id, e.url, e.secret_sealed
     )
     select c.id, c.url, c.secret_sealed, c.event_id, ev.type, ev.created_at, ev.payload
     from claimed c join order_events ev on ev.id = c.event_id`,
    [deliveryId],
  );
  const row = rows[0];
  if (!row) {
    await em.execute(`update webhook_deliveries set status = 'cancelled', error = 'endpoint deleted', finished_at = now() where id = ? and status = 'pending'`, [deliveryId]);
    return null;
  }
  return { id: row.id, url: row.url, secretSealed: row.secret_sealed, eventId: row.event_id, eventType: row.type, eventCreatedAt: row.created_at, payload: row.payload };
}

/** Records the outcome of the one attempt. */
export async function recordDeliveryResult(em: EntityManager, deliveryId: string, result: { ok: boolean; status: number | null; error: string | null; durationMs: number }) {
  await em.execute(
    `update webhook_deliveries set status = ?, response_status = ?, error = ?, duration_ms = ?, finished_at = now() where id = ?`,
    [result.ok ? 'delivered' : 'failed', result.status, result.error?.slice(0, 500) ?? null, result.durationMs, deliveryId],
  );
}

export interface DeliveryView {
  id: string;
  endpoint_id: string;
  url: string;
  event_id: string;
  event_type: string;
  order_id: string;
  status: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  replay_of: string | null;
  /** ISO 8601 UTC. */
  created_at: string;
  attempted_at: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** Recent deliveries of a store, newest first, for support ("did you send it?"). */
export async function listDeliveries(em: EntityManager, storeId: string, opts: { failedOnly?: boolean; limit?: number } = {}): Promise<DeliveryView[]> {
  const rows = await em.execute<(Omit<DeliveryView, 'created_at' | 'attempted_at'> & { created_at: Date | string; attempted_at: Date | string | null })[]>(
    `select d.id, d.endpoint_id, e.url, d.event_id, d.event_type, d.order_id, d.status, d.response_status, d.error, d.duration_ms, d.replay_of, d.created_at, d.attempted_at
     from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
     where d.store_id = ?${opts.failedOnly ? ` and d.status = 'failed'` : ''}
     order by d.created_at desc, d.id desc limit ?`,
    [storeId, opts.limit ?? 50],
  );
  // Raw queries hand timestamps back as PostgreSQL text: show them as the API does.
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)!, attempted_at: iso(r.attempted_at) }));
}

/**
 * Sends a delivery again when an operator asks: a new attempt with a new delivery id, through the
 * outbox, to an endpoint that must still exist. Returns null when the delivery or its endpoint is gone.
 */
export async function replayDelivery(em: EntityManager, deliveryId: string): Promise<{ id: string; replay_of: string } | null> {
  return em.transactional(async (tx) => {
    const [original] = await tx.execute<{ id: string; store_id: string; endpoint_id: string; event_id: string; event_type: string; order_id: string }[]>(
      `select d.id, d.store_id, d.endpoint_id, d.event_id, d.event_type, d.order_id from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id and e.deleted_at is null where d.id = ?`,
      [deliveryId],
    );
    if (!original) return null;
    const root = (await tx.execute<{ root: string }[]>(`select coalesce(replay_of, id) as root from webhook_deliveries where id = ?`, [deliveryId]))[0]!.root;
    const id = randomUUID();
    await tx.execute(
      `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, replay_of) values (?, ?, ?, ?, ?, ?, ?)`,
      [id, original.store_id, original.endpoint_id, original.event_id, original.event_type, original.order_id, root],
    );
    const planned: PlannedDelivery = { deliveryId: id, eventId: original.event_id, eventType: original.event_type, endpointId: original.endpoint_id, storeId: original.store_id, orderId: original.order_id };
    await enqueueHandOffs(tx, [
      {
        workflowType: 'webhookDeliveryWorkflow',
        workflowId: workflowIds.webhookReplay(original.event_id, original.endpoint_id, id),
        args: [planned],
        searchAttributes: { StoreId: original.store_id, OrderId: original.order_id, EventType: original.event_type, WebhookEndpointId: original.endpoint_id },
        summary: `replay of ${original.event_type} to endpoint ${original.endpoint_id}`,
      },
    ]);
    return { id, replay_of: root };
  });
}
