import { executeBound } from '../../db/bound.js';
import { writeTransaction } from '../../db/transaction.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueHandOffs } from '../../db/outbox.js';
import { iso, isoOrNull } from '../../domain/dates.js';
import { startWorkflow } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import { type PlannedDelivery } from '../../workflows/webhooks/definitions.js';
import type { WebhookDeliveryRow } from '../../db/tables/webhook-deliveries.js';
import type { WebhookEndpointRow } from '../../db/tables/webhook-endpoints.js';

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
  /** The Temporal workflow run and activity that made the attempt (null until it is claimed, and for replays: their own workflow). */
  workflow_id: string | null;
  run_id: string | null;
  activity_id: string | null;
  /** ISO 8601 UTC. */
  created_at: string;
  attempted_at: string | null;
}

/** Recent deliveries of a store, newest first, for support ("did you send it?"). */
export async function listDeliveries(
  em: EntityManager,
  storeId: string,
  opts: { failedOnly?: boolean; limit?: number } = {},
): Promise<DeliveryView[]> {
  const rows = await executeBound<
    Pick<
      WebhookDeliveryRow,
      | 'id'
      | 'endpoint_id'
      | 'event_id'
      | 'event_type'
      | 'order_id'
      | 'status'
      | 'response_status'
      | 'error'
      | 'duration_ms'
      | 'replay_of'
      | 'workflow_id'
      | 'run_id'
      | 'activity_id'
      | 'created_at'
      | 'attempted_at'
    > &
      Pick<WebhookEndpointRow, 'url'>
  >(
    em,
    `select d.id, d.endpoint_id, e.url, d.event_id, d.event_type, d.order_id, d.status, d.response_status, d.error, d.duration_ms, d.replay_of, d.workflow_id, d.run_id, d.activity_id, d.created_at, d.attempted_at
     from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
     where d.store_id = ?${opts.failedOnly ? ` and d.status = 'failed'` : ''}
     order by d.created_at desc, d.id desc limit ?`,
    [storeId, opts.limit ?? 50],
  );
  // Raw queries hand timestamps back as PostgreSQL text: show them as the API does.
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at), attempted_at: isoOrNull(r.attempted_at) }));
}

/**
 * How many deliveries a store's owners may send again ("Send again" on the dashboard) in a sliding
 * window: each is a workflow and one outbound POST, so clicking in a loop must not buy a store more of
 * the outbound worker than its budget. The operator's CLI replay is not metered.
 */
export const REPLAY_BUDGET = { perStore: 10, windowSeconds: 60 } as const;

export type Replayed = { id: string; replay_of: string };
export type ReplayOutcome = Replayed | { retryAfterSeconds: number };

/**
 * Sends a delivery again when an operator asks: a new attempt with a new delivery id, through the
 * outbox, to an endpoint that must still exist. Returns null when the delivery or its endpoint is gone.
 * `metered` (the dashboard): refused with the seconds to wait once the store sent REPLAY_BUDGET.perStore
 * again within the window (counted under a per-store lock, so a burst of clicks stops exactly at it).
 */
export function replayDelivery(em: EntityManager, deliveryId: string): Promise<Replayed | null>;
export function replayDelivery(em: EntityManager, deliveryId: string, opts: { metered: true }): Promise<ReplayOutcome | null>;
export async function replayDelivery(
  em: EntityManager,
  deliveryId: string,
  opts: { metered?: boolean } = {},
): Promise<ReplayOutcome | null> {
  return writeTransaction(em, async (tx) => {
    const [original] = await executeBound<
      Pick<WebhookDeliveryRow, 'id' | 'store_id' | 'endpoint_id' | 'event_id' | 'event_type' | 'order_id'>
    >(
      tx,
      `select d.id, d.store_id, d.endpoint_id, d.event_id, d.event_type, d.order_id from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id and e.deleted_at is null where d.id = ?`,
      [deliveryId],
    );
    if (!original) return null;
    if (opts.metered) {
      const wait = await replayWait(tx, original.store_id);
      if (wait !== null) return { retryAfterSeconds: wait };
    }
    const root = (
      await executeBound<{ root: string }>(tx, `select coalesce(replay_of, id) as root from webhook_deliveries where id = ?`, [deliveryId])
    )[0]!.root;
    const id = randomUUID();
    await executeBound(
      tx,
      `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, replay_of) values (?, ?, ?, ?, ?, ?, ?)`,
      [id, original.store_id, original.endpoint_id, original.event_id, original.event_type, original.order_id, root],
    );
    const planned: PlannedDelivery = {
      deliveryId: id,
      eventId: original.event_id,
      eventType: original.event_type,
      endpointId: original.endpoint_id,
      storeId: original.store_id,
      orderId: original.order_id,
    };
    await enqueueHandOffs(tx, [
      startWorkflow(workflows.webhookDelivery, {
        workflowId: workflowIds.webhookReplay(original.event_id, original.endpoint_id, id),
        args: [planned],
        searchAttributes: {
          StoreId: original.store_id,
          OrderId: original.order_id,
          EventType: original.event_type,
          WebhookEndpointId: original.endpoint_id,
        },
        summary: `replay of ${original.event_type} to endpoint ${original.endpoint_id}`,
      }),
    ]);
    return { id, replay_of: root };
  });
}

/** Seconds until the store may send again, or null when it is within REPLAY_BUDGET; holds the store's replay lock to commit. */
async function replayWait(tx: EntityManager, storeId: string): Promise<number | null> {
  await executeBound(tx, `select pg_advisory_xact_lock(hashtextextended('webhook-replay:' || ?::text, 0))`, [storeId]);
  const [row] = await executeBound<{ n: number; oldest: number | null }>(
    tx,
    `select count(*)::int as n, extract(epoch from now() - min(created_at))::float8 as oldest from webhook_deliveries
     where store_id = ? and replay_of is not null and created_at > now() - make_interval(secs => ?)`,
    [storeId, REPLAY_BUDGET.windowSeconds],
  );
  if (row!.n < REPLAY_BUDGET.perStore) return null;
  return Math.max(1, Math.ceil(REPLAY_BUDGET.windowSeconds - (row!.oldest ?? 0)));
}
