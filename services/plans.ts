import type { EntityManager } from '@mikro-orm/postgresql';
import { Store } from '../db/entities/store.js';
import { enqueueHandOffs } from '../db/outbox.js';
import type { StorePlan } from '../domain/store.js';
import { planEndChanged, signalWithStart, workflowIds, workflows } from '../workflows/definitions.js';

/**
 * Sets a store's plan, and when a paid plan ends (paidUntil; null: never). Limits follow from the next
 * request, since each request reads the plan. Whenever an end is set or was set, the store's plan-end
 * workflow is told in the same transaction (signal-with-start through the outbox): it waits for the new
 * end, or stops when there is none. Null when no such store.
 */
export async function setStorePlan(em: EntityManager, storeId: string, plan: StorePlan, paidUntil: Date | null): Promise<Store | null> {
  return em.transactional(async (tx) => {
    const store = await tx.findOne(Store, storeId);
    if (!store) return null;
    const hadEnd = store.paidUntil != null;
    store.plan = plan;
    store.paidUntil = paidUntil;
    await tx.flush();
    if (hadEnd || paidUntil) {
      const end = paidUntil?.toISOString() ?? null;
      await enqueueHandOffs(tx, [
        signalWithStart(workflows.planEnd, {
          workflowId: workflowIds.planEnd(storeId),
          args: [{ storeId, paidUntil: end }],
          signal: planEndChanged,
          signalArgs: [{ paidUntil: end }],
          searchAttributes: { StoreId: storeId },
          summary: end ? `paid plan ends ${end}` : 'paid plan no longer ends',
        }),
      ]);
    }
    return store;
  });
}

/**
 * Falls a store back to free when its paid plan still ends at paidUntil (the plan-end timer's end): a
 * later extension or plan change has another paid_until, so an old timer changes nothing. Nothing is
 * deleted; paid_until stays, to tell when the paid plan ended. Idempotent.
 */
export async function endPaidPlan(em: EntityManager, storeId: string, paidUntil: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update stores set plan = 'free', updated_at = now()
     where id = ? and plan = 'paid' and paid_until = ?::timestamptz returning id`,
    [storeId, paidUntil],
  );
  return rows.length > 0;
}
