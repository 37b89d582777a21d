import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { planEndChanged, type PlanEndActivities, type PlanEndInput, type PlanEndResult, type plansWorkflows } from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';

const { endPaidPlan } = proxyActivities<PlanEndActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * The end of one store's paid plan (`plan-end/<store id>`): sleeps until paidUntil, then falls the
 * store back to free. The operator's later `store plan` signals the new end (signal-with-start through
 * the outbox), which restarts the wait; a plan that no longer ends stops it. The activity changes the
 * store only while its paid_until is still the one this timer waited for, so an old timer never undoes
 * an extension; it reports the store's current end instead, and the workflow waits for that. Reads already
 * treat a passed end as free (domain/plan.ts): this makes it durable and visible.
 */
export async function planEndWorkflow(input: PlanEndInput): Promise<PlanEndResult> {
  let paidUntil = input.paidUntil;
  let changed = false;
  setHandler(planEndChanged, (signal) => {
    paidUntil = signal.paidUntil;
    changed = true;
  });
  for (;;) {
    // A start carries the same end as the signal sent with it, so nothing hangs on which comes first.
    const end = paidUntil;
    if (end === null) return { outcome: 'kept', paidUntil: null };
    changed = false;
    if (await condition(() => changed, Math.max(1, Date.parse(end) - Date.now()))) continue;
    const check = await endPaidPlan({ storeId: input.storeId, paidUntil: end });
    if (check.fellBack) return { outcome: 'fell_back', paidUntil: end };
    if (check.paidUntil === null || check.paidUntil === end) return { outcome: 'kept', paidUntil: check.paidUntil };
    // The database holds another end than the signals said (hand-offs from two relays can arrive out of
    // order): it is the truth, so wait for that one.
    paidUntil = check.paidUntil;
  }
}
planEndWorkflow satisfies WorkflowOf<typeof plansWorkflows.planEnd>;
