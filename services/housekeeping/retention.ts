import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, runPrepared, type Prepared } from '../../db/prepared.js';

// Retention: the delivery log and the order events are deleted once older than their settings
// (WEBHOOK_DELIVERY_RETENTION_DAYS, ORDER_EVENT_RETENTION_DAYS; docs/operations.md, "Retention"), by the
// housekeeping `retention` schedule, in short statements so that neither table nor its vacuum grows
// with the years and no statement holds locks or a snapshot for long.

/**
 * Rows per DELETE: about half a second per statement on a busy shared 2-core machine (each deleted attempt
 * also checks its replays), far below the 8 s query timeout, and short enough that nothing queues behind it.
 */
export const RETENTION_BATCH = 1000;
/**
 * After each statement a run rests this many times as long as the statement took. Retention is background
 * work: a run deleting back to back held one of the machine's two cores and raised the API's p99 from
 * ~20 ms to hundreds of ms while it ran (the soak, bench/README.md); resting as long as it works leaves
 * the service most of the database's time, and a backlog is still cleared at ~1,000 rows a second.
 */
export const RETENTION_REST_RATIO = 1;
/** Wall time one run may spend per table, rests included; what is left waits for the next run (the schedule runs every 15 minutes). */
export const RETENTION_RUN_BUDGET_MS = 120_000;

export interface PruneOptions {
  /** Keep rows younger than this many days; 0 keeps everything (nothing is deleted). */
  days: number;
  batch?: number;
  budgetMs?: number;
  /** Rest after each statement, as a multiple of its time (default RETENTION_REST_RATIO). */
  restRatio?: number;
  /** Called after every statement with the rows deleted so far (the activity heartbeats with it). */
  progress?: (deleted: number) => void;
  /**
   * Reclaims the deleted rows' space (a VACUUM, when autovacuum will not: services/housekeeping/vacuum.ts):
   * run each time `every` more rows are gone, and once at the end for the rest, so dead rows never pile up
   * beyond `every` however much a run deletes.
   */
  reclaim?: { every: number; run: () => Promise<void> };
}

export interface PruneResult {
  deleted: number;
  statements: number;
  /** True when the run stopped on its time budget with old rows left (the next run carries on). */
  budgetSpent: boolean;
  ms: number;
  /** Times `reclaim` ran. */
  reclaims: number;
}

/**
 * Deletes the delivery log's attempts older than `days`, `batch` per statement, until none is left or
 * the budget is spent. Kept whatever their age: attempts not finished (pending, sending), and an attempt
 * that still has a replay (a replay points at its first attempt; the replay goes first, then the
 * attempt it replays, in a later statement).
 */
export function pruneDeliveryLog(em: EntityManager, opts: PruneOptions): Promise<PruneResult> {
  return pruneInBatches(em, PRUNE_DELIVERIES, opts);
}

/**
 * Deletes order events older than `days`, `batch` per statement, until none is left or the budget is
 * spent; only events already handed to the webhook lanes (or never to be sent) that no delivery attempt
 * in the log refers to any more. The order itself, its status history (the tracking page's) and its
 * updates to a connected shop are other tables, never touched.
 */
export function pruneOrderEvents(em: EntityManager, opts: PruneOptions): Promise<PruneResult> {
  return pruneInBatches(em, PRUNE_EVENTS, opts);
}

async function pruneInBatches(em: EntityManager, statement: Prepared, opts: PruneOptions): Promise<PruneResult> {
  const started = Date.now();
  const batch = opts.batch ?? RETENTION_BATCH;
  const budgetMs = opts.budgetMs ?? RETENTION_RUN_BUDGET_MS;
  let deleted = 0;
  let statements = 0;
  let reclaims = 0;
  let unreclaimed = 0;
  const reclaim = async (atLeast: number) => {
    if (!opts.reclaim || unreclaimed === 0 || unreclaimed < atLeast) return;
    await opts.reclaim.run();
    reclaims++;
    unreclaimed = 0;
  };
  const result = async (budgetSpent: boolean) => {
    await reclaim(1);
    return { deleted, statements, budgetSpent, ms: Date.now() - started, reclaims };
  };
  if (opts.days <= 0) return { deleted, statements, budgetSpent: false, ms: 0, reclaims };
  const restRatio = opts.restRatio ?? RETENTION_REST_RATIO;
  for (;;) {
    const statementStarted = Date.now();
    const [row] = await runPrepared<{ n: number }>(em, statement, [opts.days, batch]);
    const worked = Date.now() - statementStarted;
    statements++;
    deleted += row!.n;
    unreclaimed += row!.n;
    opts.progress?.(deleted);
    if (row!.n < batch) return result(false);
    if (Date.now() - started >= budgetMs) return result(true);
    await reclaim(opts.reclaim?.every ?? Infinity);
    // The VACUUM is throttled on its own (vacuum.ts); the rest answers the DELETE's time only.
    await sleep(worked * restRatio);
  }
}

// Store by store through each table's (store_id, created_at) index: the oldest rows are found without a
// scan, and rows deleted by the previous statement are skipped at the index (not re-read), so every
// statement costs the same however much is left. `order by created_at` keeps PostgreSQL on that index
// (without it, it may walk the primary key and filter), and `= any(array(…))` deletes by primary key
// lookups (`in (…)` may become a hash join over the whole table). Prepared: the same text runs every batch.
const PRUNE_DELIVERIES = prepared(`with doomed as (
    select d.id from stores s cross join lateral (
      select d.id from webhook_deliveries d
      where d.store_id = s.id and d.created_at < now() - make_interval(days => $1)
        and d.status in ('delivered', 'failed', 'cancelled')
        and not exists (select 1 from webhook_deliveries r where r.replay_of = d.id)
      order by d.created_at
      limit $2
    ) d
    limit $2
  ), gone as (
    delete from webhook_deliveries where id = any(array(select id from doomed)) returning 1
  ) select count(*)::int as n from gone`);

const PRUNE_EVENTS = prepared(`with doomed as (
    select e.id from stores s cross join lateral (
      select e.id from order_events e
      where e.store_id = s.id and e.created_at < now() - make_interval(days => $1) and e.dispatched_at is not null
        and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
      order by e.created_at
      limit $2
    ) e
    limit $2
  ), gone as (
    delete from order_events where id = any(array(select id from doomed)) returning 1
  ) select count(*)::int as n from gone`);
