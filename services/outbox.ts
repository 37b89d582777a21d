import type { EntityManager } from '@mikro-orm/postgresql';

/** How long a handed-over outbox row is kept (for "was this handed to Temporal, and when?") before the purge deletes it. */
export const OUTBOX_RETENTION_DAYS = 7;
/** Rows deleted per statement: each delete is short, so it never holds locks for long. */
export const OUTBOX_PURGE_BATCH = 1000;

/**
 * Deletes outbox rows handed over more than `retentionDays` ago, oldest first, in batches of
 * OUTBOX_PURGE_BATCH, each its own short statement; rows not handed over (waiting or dead) are never
 * touched. Calls `progress` between batches (the activity's heartbeat). Returns how many it deleted.
 */
export async function purgeDoneOutbox(em: EntityManager, opts: { retentionDays?: number; progress?: (deleted: number) => void } = {}): Promise<number> {
  let deleted = 0;
  for (;;) {
    // By id (the primary key, in write order): the oldest rows come first and the scan stops after one batch.
    const [row] = await em.execute<{ n: number }[]>(
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
