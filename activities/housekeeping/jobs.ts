import { Context } from '@temporalio/activity';
import { purgeRateLimitWindows, sweepCutOffDeliveries } from '../../services/housekeeping/jobs.js';
import { purgeDoneOutbox } from '../../services/outbox.js';
import { pruneDeliveryLog, pruneOrderEvents, type PruneOptions, type PruneResult } from '../../services/housekeeping/retention.js';
import type { HousekeepingActivities } from '../../workflows/housekeeping/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** The housekeeping jobs, one activity each (run by housekeepingWorkflow from its Temporal Schedule). */
export function housekeepingActivities({ orm, config }: Pick<ActivityDeps, 'orm' | 'config'>) {
  /** One table's retention run: heartbeats after every statement, and says in the worker's log what it did. */
  const prune = async (table: string, run: (opts: PruneOptions) => Promise<PruneResult>, days: number): Promise<number> => {
    const ctx = Context.current();
    const r = await run({ days, progress: (deleted) => ctx.heartbeat({ deleted }) });
    if (r.deleted > 0 || r.budgetSpent)
      ctx.log.info(`retention: ${table}: deleted ${r.deleted} rows older than ${days} days`, {
        table,
        deleted: r.deleted,
        statements: r.statements,
        ms: r.ms,
        budgetSpent: r.budgetSpent,
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
