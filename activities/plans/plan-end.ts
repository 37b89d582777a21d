import { endPaidPlan } from '../../services/plans/change.js';
import type { PlanEndActivities, PlanEndCheck } from '../../workflows/plans/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** Activities of store plans. */
export function planActivities({ orm }: ActivityDeps) {
  return {
    /** Falls the store back to free if its paid plan still ends at paidUntil, else reports its current end (idempotent). */
    async endPaidPlan(input: { storeId: string; paidUntil: string }): Promise<PlanEndCheck> {
      return endPaidPlan(orm.em.fork(), input.storeId, input.paidUntil);
    },
  } satisfies PlanEndActivities;
}
