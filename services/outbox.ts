import type { EntityManager } from '@mikro-orm/postgresql';
import { OUTBOX_CHANNEL } from '../db/outbox.js';
import { executeBound } from '../db/bound.js';
import type { OutboxRow } from '../db/tables/outbox.js';

/**
 * A row that Temporal refused this many times (for a reason of its own: not an outage, not throttling)
 * is dead: the relay tries it no more until an operator retries it. With the relay's back-off (capped at
 * a minute) that is about 15 minutes of refusals: long enough for a passing fault, short enough to be
 * seen the same day, and a refusal that repeats 20 times will not pass by itself.
 */
export const OUTBOX_DEAD_AFTER_FAILURES = 20;

/** How long a handed-over outbox row is kept (for "was this handed to Temporal, and when?") before the purge deletes it. */
export const OUTBOX_RETENTION_DAYS = 7;
/** Rows deleted per statement: each delete is short, so it never holds locks for long. */
export const OUTBOX_PURGE_BATCH = 1000;

/**
 * Deletes outbox rows handed over more than `retentionDays` ago, oldest first, in batches of
 * OUTBOX_PURGE_BATCH, each its own short statement; rows not handed over (waiting or dead) are never
 * touched. Calls `progress` between batches (the activity's heartbeat). Returns how many it deleted.
 */
export async function purgeDoneOutbox(
  em: EntityManager,
  opts: { retentionDays?: number; progress?: (deleted: number) => void } = {},
): Promise<number> {
  let deleted = 0;
  for (;;) {
    // By id (the primary key, in write order): the oldest rows come first and the scan stops after one batch.
    const [row] = await executeBound<{ n: number }>(
      em,
      `with gone as (
         delete from outbox where id in (
           select id from outbox where done_at < now() - make_interval(days => ?) order by id limit ?)
         returning 1
       ) select count(*)::int as n from gone`,
      [opts.retentionDays ?? OUTBOX_RETENTION_DAYS, OUTBOX_PURGE_BATCH],
    );
    deleted += row!.n;
    opts.progress?.(deleted);
    if (row!.n < OUTBOX_PURGE_BATCH) return deleted;
  }
}

/** A hand-off not yet handed over, as an operator sees it (`outbox list`). */
export interface OutboxEntry {
  id: string;
  action: 'start' | 'signal_with_start';
  workflow_type: string;
  workflow_id: string;
  signal_name: string | null;
  summary: string | null;
  /** Every try, Temporal unreachable included (sets the back-off). */
  attempts: number;
  /** Tries Temporal refused for a reason of the row's own (they make it dead at the relay's bound). */
  failures: number;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
  /** Set when the relay gave up on it: it waits for `outbox retry`. */
  dead_at: string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/** Hand-offs not yet handed over (waiting and dead; only dead ones with `deadOnly`), oldest first, at most `limit`. */
export async function listOutbox(em: EntityManager, opts: { deadOnly: boolean; limit: number }): Promise<OutboxEntry[]> {
  const rows = await executeBound<
    Omit<OutboxEntry, 'created_at' | 'next_attempt_at' | 'dead_at'> & { created_at: Date; next_attempt_at: Date; dead_at: Date | null }
  >(
    em,
    `select id::text, action, workflow_type, workflow_id, signal_name, summary, attempts, failures, last_error, created_at, next_attempt_at, dead_at
     from outbox where ${opts.deadOnly ? 'dead_at is not null' : 'done_at is null'} order by id limit ?`,
    [opts.limit],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)!, next_attempt_at: iso(r.next_attempt_at)!, dead_at: iso(r.dead_at) }));
}

/**
 * Sends hand-offs again now: one by id (dead or waiting), or every dead one. Their counts start over, so a
 * row that is refused again gets the whole bound of tries before it is dead again; the relay is woken at
 * commit. Rows already handed over are never sent twice. Returns the ids it queued.
 */
export async function retryOutbox(em: EntityManager, which: { id: string } | { allDead: true }): Promise<string[]> {
  const rows = await executeBound<Pick<OutboxRow, 'id'>>(
    em,
    `with retried as (
       update outbox set dead_at = null, failures = 0, attempts = 0, next_attempt_at = now()
       where done_at is null and ${'id' in which ? 'id = ?' : 'dead_at is not null'}
       returning id
     ) select id::text, pg_notify('${OUTBOX_CHANNEL}', '') from retried order by id`,
    'id' in which ? [which.id] : [],
  );
  return rows.map((r) => r.id);
}

/**
 * The outbox's backlog for the metrics page, in one statement that reads only the partial indexes' rows
 * (waiting and dead ones, never the handed-over ones kept for OUTBOX_RETENTION_DAYS).
 */
export async function outboxState(em: EntityManager): Promise<{ waiting: number; oldestWaitingSeconds: number; dead: number }> {
  const [row] = await executeBound<{ waiting: number; oldest: number; dead: number }>(
    em,
    `select (select count(*) from outbox where done_at is null and dead_at is null)::int as waiting,
       coalesce((select extract(epoch from now() - min(created_at)) from outbox where done_at is null and dead_at is null), 0)::float8 as oldest,
       (select count(*) from outbox where dead_at is not null)::int as dead`,
  );
  return { waiting: row!.waiting, oldestWaitingSeconds: row!.oldest, dead: row!.dead };
}
