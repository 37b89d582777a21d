import { Context } from '@temporalio/activity';
import { purgeRateLimitWindows, sweepCutOffDeliveries } from '../services/housekeeping.js';
import { purgeDoneOutbox } from '../services/outbox.js';
import type { HousekeepingActivities } from '../workflows/definitions.js';
import type { ActivityDeps } from './deps.js';

/** The housekeeping jobs, one activity each (run by housekeepingWorkflow from its Temporal Schedule). */
export function housekeepingActivities({ orm }: Pick<ActivityDeps, 'orm'>) {
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
  } satisfies HousekeepingActivities;
}
