import { Context } from '@temporalio/activity';
import { purgeRateLimitWindows, sweepCutOffDeliveries } from '../../services/housekeeping/jobs.js';
import { purgeDoneOutbox } from '../../services/outbox.js';
import { pruneDeliveryLog, pruneOrderEvents, type PruneOptions, type PruneResult } from '../../services/housekeeping/retention.js';
import { autovacuumOff, vacuumTable, type PrunedTable } from '../../services/housekeeping/vacuum.js';
import type { HousekeepingActivities } from '../../workflows/housekeeping/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** Rows a retention run deletes between two VACUUMs of its own (when autovacuum is off): about 100 statements. */
export const RECLAIM_EVERY = 200_000;

/** The housekeeping jobs, one activity each (run by housekeepingWorkflow from its Temporal Schedule). */
export function housekeepingActivities({ orm, config }: Pick<ActivityDeps, 'orm' | 'config'>) {
  /** One table's retention run: heartbeats after every statement, and says in the worker's log what it did. */
  const prune = async (table: PrunedTable, run: (opts: PruneOptions) => Promise<PruneResult>, days: number): Promise<number> => {
    const ctx = Context.current();
    let deleted = 0;
    let vacuumMs = 0;
    // Autovacuum off (server or table): this run vacuums what it deleted, every RECLAIM_EVERY rows and at its end.
    const reclaim = (await autovacuumOff(orm.em.fork(), table))
      ? {
          every: RECLAIM_EVERY,
          run: async () => {
            const beat = setInterval(() => ctx.heartbeat({ deleted, vacuuming: table }), 5_000);
            try {
              vacuumMs += await vacuumTable(config.databaseUrl, table);
            } finally {
              clearInterval(beat);
            }
          },
        }
      : undefined;
    const r = await run({ days, reclaim, progress: (n) => ctx.heartbeat({ deleted: (deleted = n) }) });
    if (r.deleted > 0 || r.budgetSpent)
      ctx.log.info(`retention: ${table}: deleted ${r.deleted} rows older than ${days} days`, {
        table,
        deleted: r.deleted,
        statements: r.statements,
        ms: r.ms,
        budgetSpent: r.budgetSpent,
        ...(reclaim ? { vacuums: r.reclaims, vacuumMs } : {}),
      });
    return r.deleted;
  };
  return {
    async sweepCutOffDeliveries(): Promise<number> {
      return sweepCutOffDeliveries(orm.em.fork());
    },
    async purgeRateLimitWindows(): Promise<number> {
      return purgeRateLimitWindows(orm.em.fork());
    },
    async purgeOutbox(): Promise<number> {
      const ctx = Context.current();
      return purgeDoneOutbox(orm.em.fork(), { progress: (deleted) => ctx.heartbeat({ deleted }) });
    },
    async pruneDeliveryLog(): Promise<number> {
      return prune('webhook_deliveries', (opts) => pruneDeliveryLog(orm.em.fork(), opts), config.retention.deliveryDays);
    },
    async pruneOrderEvents(): Promise<number> {
      return prune('order_events', (opts) => pruneOrderEvents(orm.em.fork(), opts), config.retention.orderEventDays);
    },
  } satisfies HousekeepingActivities;
}
