import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';

// The periodic jobs other than the outbox purge (services/outbox.ts), run by the housekeeping schedules.

/** How long a delivery may stay 'sending' before it counts as cut off: well past its one POST (WEBHOOK_TIMEOUT_MS ≤ 60 s). */
export const CUT_OFF_AFTER_SECONDS = 180;

/**
 * A worker that died mid-attempt leaves its delivery 'sending'; after CUT_OFF_AFTER_SECONDS it is
 * settled as failed (at most one attempt, as the spec wants; an operator may replay it). The same for
 * an order's push or chat message (docs/notifications.md), so the order page does not say "sending"
 * forever. Returns how many rows it settled. (`finished_at is null` holds for every sending delivery: it
 * lets PostgreSQL read the small index of unfinished deliveries, not the whole delivery log.)
 */
export async function sweepCutOffDeliveries(em: EntityManager): Promise<number> {
  const [row] = await executeBound<{ n: number }>(
    em,
    `with settled as (
       update webhook_deliveries set status = 'failed', error = 'the attempt was cut off (worker stopped); not retried', finished_at = now()
       where status = 'sending' and finished_at is null and attempted_at < now() - make_interval(secs => ?)
       returning 1
     ), messages as (
       update order_messages set status = 'failed', detail = 'the attempt was cut off (worker stopped); not retried', finished_at = now()
       where status = 'sending' and created_at < now() - make_interval(secs => ?)
       returning 1
     ) select (select count(*) from settled)::int + (select count(*) from messages)::int as n`,
    [CUT_OFF_AFTER_SECONDS, CUT_OFF_AFTER_SECONDS],
  );
  return row!.n;
}

/** Rate-limit windows are one minute long; older than this they are of no use to anyone. */
export const RATE_LIMIT_WINDOWS_KEPT_SECONDS = 300;

/** Deletes rate-limit windows older than RATE_LIMIT_WINDOWS_KEPT_SECONDS; returns how many. */
export async function purgeRateLimitWindows(em: EntityManager): Promise<number> {
  const [row] = await executeBound<{ n: number }>(
    em,
    `with gone as (delete from rate_limit_counters where window_start < now() - make_interval(secs => ?) returning 1) select count(*)::int as n from gone`,
    [RATE_LIMIT_WINDOWS_KEPT_SECONDS],
  );
  return row!.n;
}
