import { executeBound } from '../../db/bound.js';
import { writeTransaction } from '../../db/transaction.js';
import type { EntityDictionary, EntityManager } from '@mikro-orm/postgresql';
import { Store, type StoreRow } from '../../db/entities/store.js';
import { enqueueHandOffs } from '../../db/outbox.js';
import { iso } from '../../domain/dates.js';
import type { StorePlan } from '../../domain/store.js';
import { planEndChanged } from '../../workflows/plans/definitions.js';
import { signalWithStart } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';

/**
 * Sets a store's plan, and when a paid plan ends (paidUntil; null: never). Limits follow from the next
 * request, since each request reads the plan. Whenever an end is set or was set, the store's plan-end
 * workflow is told in the same transaction (signal-with-start through the outbox): it waits for the new
 * end, or stops when there is none. Null when no such store.
 */
export async function setStorePlan(em: EntityManager, storeId: string, plan: StorePlan, paidUntil: Date | null): Promise<Store | null> {
  return writeTransaction(em, async (tx) => {
    const [before] = await executeBound<EntityDictionary<Store>>(tx, `select * from stores where id = ? for update`, [storeId]);
    if (!before) return null;
    const hadEnd = before.paid_until != null;
    // Only a change is written (and moves updated_at).
    const [after] = await executeBound<EntityDictionary<Store>>(
      tx,
      `update stores set plan = ?, paid_until = ?::timestamptz, updated_at = now()
       where id = ? and (plan is distinct from ? or paid_until is distinct from ?::timestamptz) returning *`,
      [plan, paidUntil, storeId, plan, paidUntil],
    );
    const store = tx.map(Store, after ?? before);
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
 * later extension or plan change has another paid_until, so an old timer changes nothing, and the end
 * the store has now (null when it is not paid or does not end) is reported instead. Nothing is
 * deleted; paid_until stays, to tell when the paid plan ended. Idempotent. One statement.
 */
export async function endPaidPlan(
  em: EntityManager,
  storeId: string,
  paidUntil: string,
): Promise<{ fellBack: boolean; paidUntil: string | null }> {
  // Compared to the millisecond, as the workflow carries it (ISO 8601). The outer select reads the row as
  // it was before the update: only used when nothing was updated.
  const [row] = await executeBound<Pick<StoreRow, 'paid_until'> & { fell_back: boolean }>(
    em,
    `with done as (
       update stores set plan = 'free', updated_at = now()
       where id = ? and plan = 'paid' and date_trunc('milliseconds', paid_until) = ?::timestamptz returning id
     )
     select exists (select 1 from done) as fell_back,
       (select paid_until from stores where id = ? and plan = 'paid') as paid_until`,
    [storeId, paidUntil, storeId],
  );
  if (row!.fell_back) return { fellBack: true, paidUntil: null };
  return { fellBack: false, paidUntil: row!.paid_until === null ? null : iso(row!.paid_until) };
}
