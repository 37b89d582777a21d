import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, runPrepared } from '../../db/prepared.js';
import { idFieldInJson, uuidInJson } from '../../db/sql-array.js';
import type { WebhookDeliveryRow } from '../../db/tables/webhook-deliveries.js';
import type { WebhookEndpointRow } from '../../db/tables/webhook-endpoints.js';
import type { OrderEventRow } from '../../db/tables/order-events.js';

/** A delivery waiting in a store's lane, in the order it must be sent (per endpoint and order). */
export interface LaneDelivery {
  deliveryId: string;
  storeId: string;
  /** When the delivery was planned (its event's commit time): how long it has waited. */
  createdAt: Date;
  eventId: string;
  eventType: string;
  endpointId: string;
  orderId: string;
}

// created_at comes as text or Date depending on the pool's type parsers.
type PlannedRow = Pick<WebhookDeliveryRow, 'id' | 'store_id' | 'created_at' | 'event_id' | 'event_type' | 'endpoint_id' | 'order_id'>;
const toDelivery = (r: PlannedRow): LaneDelivery => ({
  deliveryId: r.id,
  storeId: r.store_id,
  createdAt: new Date(r.created_at),
  eventId: r.event_id,
  eventType: r.event_type,
  endpointId: r.endpoint_id,
  orderId: r.order_id,
});

/**
 * Takes up to `limit` of the store's events not yet handed over (oldest first), marks them dispatched
 * and plans one delivery per subscribed, live endpoint; returns the new deliveries in event order.
 * A planner that crashes before commit leaves the events untaken, so nothing is lost.
 */
export async function planStoreDeliveries(em: EntityManager, storeId: string, limit: number): Promise<LaneDelivery[]> {
  return (await runPrepared<PlannedRow>(em, PLAN, [storeId, limit])).map(toDelivery);
}
// The lane's statements run often and the same every time: prepared, so PostgreSQL plans each once per connection.
const PLAN = prepared(planSql('store_id = $1', '$2'));

/**
 * The planning statement for the events matching `whichEvents` (an SQL condition on order_events),
 * at most `limit` of them: marks them dispatched and plans their deliveries in one statement.
 */
function planSql(whichEvents: string, limit: string): string {
  return `with taken as (
       update order_events set dispatched_at = now(), dispatch_count = dispatch_count + 1
       where id in (
         select id from order_events where ${whichEvents} and dispatched_at is null and not backfill
         order by created_at, id limit ${limit} for update skip locked)
       returning id, store_id, order_id, type, created_at
     ), planned as (
       insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, created_at)
       select gen_random_uuid(), t.store_id, e.id, t.id, t.type, t.order_id, t.created_at
       from taken t join webhook_endpoints e
         on e.store_id = t.store_id and e.active and e.deleted_at is null and (t.type = any(e.events) or '*' = any(e.events))
       on conflict (event_id, endpoint_id) where replay_of is null do nothing
       returning id, store_id, event_id, event_type, endpoint_id, order_id, created_at
     )
     select id, store_id, created_at, event_id, event_type, endpoint_id, order_id from planned order by created_at, event_id, endpoint_id`;
}

/** The store's deliveries still pending (planned by an earlier run that stopped), oldest first. */
export async function loadPendingDeliveries(em: EntityManager, storeId: string, limit: number): Promise<LaneDelivery[]> {
  return (await runPrepared<PlannedRow>(em, PENDING, [storeId, limit])).map(toDelivery);
}
const PENDING = prepared(`select id, store_id, created_at, event_id, event_type, endpoint_id, order_id from webhook_deliveries
  where store_id = $1 and status = 'pending' and finished_at is null and replay_of is null
  order by created_at, event_id, endpoint_id limit $2`);

/** The shard of a row's store in SQL, as webhookShard computes it (`$N` placeholders: shard, shard count). */
export const SHARD_OF_STORE_SQL = (shard: string, shards: string) =>
  `('x' || right(store_id::text, 8))::bit(32)::bigint % ${shards}::int = ${shard}::int`;

/** A shard of stores: the stores whose webhookShard(id, shards) is `shard`. */
export interface StoreShard {
  shard: number;
  shards: number;
}

/**
 * Like planStoreDeliveries, for every store of a shard at once: takes up to `limit` events not yet
 * handed over (oldest first, any store) and plans their deliveries.
 */
export async function planShardDeliveries(em: EntityManager, s: StoreShard, limit: number): Promise<LaneDelivery[]> {
  return (await runPrepared<PlannedRow>(em, PLAN_SHARD, [s.shard, s.shards, limit])).map(toDelivery);
}
const PLAN_SHARD = prepared(planSql(SHARD_OF_STORE_SQL('$1', '$2'), '$3'));

/**
 * What a planning statement may claim as it plans (planAndClaimShardDeliveries): it claims only when every
 * delivery it plans fits `room` (the run's free places) and each store's fit `perStore`, so the run's queue
 * hands every claimed one out at once; never for `skipEndpoints` (circuits the run holds open).
 */
export interface ClaimAsPlanned {
  room: number;
  perStore: number;
  skipEndpoints: string[];
  by: AttemptOrigin;
}

/** A delivery just planned; `claimed` when the planning statement claimed it too (its attempt may start at once). */
export interface PlannedDelivery extends LaneDelivery {
  claimed: ClaimedDelivery | null;
}

/**
 * planShardDeliveries for a run with nothing queued or in flight (an isolated order's case): the same
 * statement also claims the first delivery of each endpoint, which that run's queue hands out at once,
 * so the order's deliveries cost one statement and one commit instead of two (the claim's own). The rest
 * stay pending and are claimed as usual. A delivery inserted claimed is as one claimed by CLAIM: a crash
 * before its POST leaves it 'sending', settled by the sweep as cut off, never sent twice.
 */
export async function planAndClaimShardDeliveries(
  em: EntityManager,
  s: StoreShard,
  limit: number,
  claim: ClaimAsPlanned,
): Promise<PlannedDelivery[]> {
  const rows = await runPrepared<
    PlannedRow &
      Pick<WebhookEndpointRow, 'url' | 'secret_sealed'> &
      Pick<OrderEventRow, 'traceparent'> & { claimed: boolean; payload: string | null }
  >(em, PLAN_AND_CLAIM_SHARD, [
    s.shard,
    s.shards,
    limit,
    claim.room,
    claim.perStore,
    JSON.stringify(claim.skipEndpoints),
    claim.by.workflowId,
    claim.by.runId,
    claim.by.activityId,
  ]);
  return rows.map((r) => ({
    ...toDelivery(r),
    claimed: r.claimed
      ? {
          id: r.id,
          endpointId: r.endpoint_id,
          url: r.url,
          secretSealed: r.secret_sealed,
          eventId: r.event_id,
          eventType: r.event_type,
          eventCreatedAt: new Date(r.created_at),
          payload: r.payload,
          traceparent: r.traceparent,
        }
      : null,
  }));
}
// `pairs` is every (event, endpoint) to plan; `nth` = 1 marks an endpoint's first, the one an empty queue hands
// out first. Claimed rows are inserted 'sending' with their origin (a CTE cannot update rows its sibling
// inserts). Each claimed event's payload comes once, on its first claimed row.
const PLAN_AND_CLAIM_SHARD = prepared(`with taken as (
       update order_events set dispatched_at = now(), dispatch_count = dispatch_count + 1
       where id in (
         select id from order_events where ${SHARD_OF_STORE_SQL('$1', '$2')} and dispatched_at is null and not backfill
         order by created_at, id limit $3 for update skip locked)
       returning id, store_id, order_id, type, created_at, traceparent
     ), pairs as (
       select t.store_id, e.id as endpoint_id, t.id as event_id, t.type, t.order_id, t.created_at, t.traceparent, e.url, e.secret_sealed,
         row_number() over (partition by e.id order by t.created_at, t.id) as nth,
         count(*) over (partition by t.store_id) as of_store
       from taken t join webhook_endpoints e
         on e.store_id = t.store_id and e.active and e.deleted_at is null and (t.type = any(e.events) or '*' = any(e.events))
     ), fits as (
       select count(*) <= $4::int and coalesce(max(of_store), 0) <= $5::int as ok from pairs
     ), planned as (
       insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, created_at, status, attempted_at, workflow_id, run_id, activity_id)
       select gen_random_uuid(), p.store_id, p.endpoint_id, p.event_id, p.type, p.order_id, p.created_at,
         case when p.claim then 'sending' else 'pending' end, case when p.claim then now() end,
         case when p.claim then $7 end, case when p.claim then $8 end, case when p.claim then $9 end
       from (select pairs.*, nth = 1 and (select ok from fits) and endpoint_id <> all(array(select jsonb_array_elements_text($6::jsonb)::uuid)) as claim
             from pairs) p
       on conflict (event_id, endpoint_id) where replay_of is null do nothing
       returning id, store_id, event_id, event_type, endpoint_id, order_id, created_at, status = 'sending' as claimed
     )
     select d.id, d.store_id, d.created_at, d.event_id, d.event_type, d.endpoint_id, d.order_id, d.claimed,
       p.url, p.secret_sealed, p.traceparent,
       case when d.claimed and row_number() over (partition by d.event_id, d.claimed order by d.id) = 1
         then (select ev.payload::text from order_events ev where ev.id = d.event_id) end as payload
     from planned d join pairs p on p.event_id = d.event_id and p.endpoint_id = d.endpoint_id
     order by d.created_at, d.event_id, d.endpoint_id`);

/** The shard's deliveries still pending (planned by an earlier run that stopped), oldest first. */
export async function loadShardPendingDeliveries(em: EntityManager, s: StoreShard, limit: number): Promise<LaneDelivery[]> {
  return (await runPrepared<PlannedRow>(em, PENDING_SHARD, [s.shard, s.shards, limit])).map(toDelivery);
}
const PENDING_SHARD = prepared(`select id, store_id, created_at, event_id, event_type, endpoint_id, order_id from webhook_deliveries
  where status = 'pending' and finished_at is null and replay_of is null and ${SHARD_OF_STORE_SQL('$1', '$2')}
  order by created_at, event_id, endpoint_id limit $3`);

/** True when a store of the shard has events that no run has taken yet. */
export async function shardEventsWaiting(em: EntityManager, s: StoreShard): Promise<boolean> {
  const [row] = await runPrepared<{ waiting: boolean }>(em, SHARD_EVENTS_WAITING, [s.shard, s.shards]);
  return Boolean(row?.waiting);
}
const SHARD_EVENTS_WAITING = prepared(
  `select exists (select 1 from order_events where dispatched_at is null and not backfill and ${SHARD_OF_STORE_SQL('$1', '$2')}) as waiting`,
);

/** The workflow run and activity that make an attempt, kept on the delivery row for operators. */
export interface AttemptOrigin {
  workflowId: string;
  runId: string;
  activityId: string;
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  secretSealed: string;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  /** The event's order snapshot as JSON text, on the first delivery of each event in the batch only. */
  payload: string | null;
  /** The W3C trace context of the request that wrote the event (null when it was not traced). */
  traceparent: string | null;
}

/**
 * Moves pending deliveries to sending, only while their endpoint is live, in one statement; the ones
 * whose endpoint is gone are cancelled. A delivery already claimed (by any run) is not returned, so
 * it is never sent twice. The event's payload comes once per event.
 */
export async function claimDeliveries(em: EntityManager, ids: string[], by: AttemptOrigin | null): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const rows = await runPrepared<
    Pick<WebhookDeliveryRow, 'id' | 'endpoint_id' | 'event_id'> &
      Pick<WebhookEndpointRow, 'url' | 'secret_sealed'> &
      Pick<OrderEventRow, 'type' | 'created_at' | 'traceparent'> & { payload: string | null }
  >(em, CLAIM, [by?.workflowId ?? null, by?.runId ?? null, by?.activityId ?? null, JSON.stringify(ids)]);
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    url: r.url,
    secretSealed: r.secret_sealed,
    eventId: r.event_id,
    eventType: r.type,
    // pg may hand the timestamp back as text (db/tables/columns.ts timestamptz): ClaimedDelivery promises a Date.
    eventCreatedAt: new Date(r.created_at),
    payload: r.payload,
    traceparent: r.traceparent,
  }));
}

// The ids come as a JSON array: PostgreSQL sizes a uuid[] value exactly when it plans with it, which made
// planning anew look cheaper than the kept plan at most calls (739 plans for 1,256 calls). They are read
// through uuidInJson so that the kept plan takes the primary key, not a scan of the table.
export const CLAIM = prepared(`with claimed as (
    update webhook_deliveries d set status = 'sending', attempted_at = now(), workflow_id = $1, run_id = $2, activity_id = $3
    from webhook_endpoints e
    where d.id ${uuidInJson('$4::jsonb')} and d.status = 'pending' and e.id = d.endpoint_id and e.active and e.deleted_at is null
    returning d.id, d.event_id, d.endpoint_id, e.url, e.secret_sealed
  ), cancelled as (
    update webhook_deliveries set status = 'cancelled', error = 'endpoint deleted', finished_at = now()
    where id ${uuidInJson('$4::jsonb')} and status = 'pending' and id not in (select id from claimed)
  )
  select c.id, c.endpoint_id, c.url, c.secret_sealed, c.event_id, ev.type, ev.created_at, ev.traceparent,
    case when row_number() over (partition by c.event_id order by c.id) = 1 then ev.payload::text end as payload
  from claimed c join order_events ev on ev.id = c.event_id`);

export interface AttemptResult {
  deliveryId: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** Records the outcome of attempts, any number in one statement. */
export async function recordDeliveryResults(em: EntityManager, results: AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map((r) => ({
    id: r.deliveryId,
    status: r.ok ? 'delivered' : 'failed',
    response_status: r.status,
    error: r.error?.slice(0, 500) ?? null,
    duration_ms: r.durationMs,
  }));
  await runPrepared(em, RECORD, [JSON.stringify(rows)]);
}
// d.id is also matched through idFieldInJson: joined on x.id alone, the kept plan scanned the whole table.
export const RECORD =
  prepared(`update webhook_deliveries d set status = x.status, response_status = x.response_status, error = x.error, duration_ms = x.duration_ms, finished_at = now()
  from jsonb_to_recordset($1::jsonb) as x(id uuid, status text, response_status integer, error text, duration_ms integer)
  where d.id = x.id and d.id ${idFieldInJson('$1::jsonb')}`);

/** True when the store has events that no lane run has taken yet. */
export async function storeEventsWaiting(em: EntityManager, storeId: string): Promise<boolean> {
  const [row] = await runPrepared<{ waiting: boolean }>(em, EVENTS_WAITING, [storeId]);
  return Boolean(row?.waiting);
}
const EVENTS_WAITING = prepared(
  `select exists (select 1 from order_events where store_id = $1 and dispatched_at is null and not backfill) as waiting`,
);
