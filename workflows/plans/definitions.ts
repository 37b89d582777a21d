// Pure: the contract of the end of a paid plan between producers (services, through the outbox), the
// workflows and the activities: the workflows' names on the wire, inputs and results, signals and queries,
// and the interface of the activities they call. It imports nothing of this project outside workflows/.
// Nothing here may do I/O.
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../hand-off.js';

export interface PlanEndInput {
  storeId: string;
  /** When the paid plan ends (ISO 8601 UTC); null: it does not end (the workflow has nothing to do). */
  paidUntil: string | null;
}

/** The operator set the store's plan again (`store plan`): the plan now ends at paidUntil, or never (null). */
export const planEndChanged = defineSignal<[{ paidUntil: string | null }]>('planEndChanged');

export interface PlanEndResult {
  /** fell_back: the store is free now; kept: the plan was changed before its end and this timer had nothing to do. */
  outcome: 'fell_back' | 'kept';
  paidUntil: string | null;
}

/** What the plan-end activity found: whether it fell the store back, else the end the store has now (null: none). */
export interface PlanEndCheck {
  fellBack: boolean;
  /** When the store did not fall back: its paid plan's current end (ISO 8601), or null when it is not paid or does not end. */
  paidUntil: string | null;
}

export interface PlanEndActivities {
  /** Sets the store's plan to free if it is still paid and still ends at paidUntil; else reports the end it has now. */
  endPaidPlan: (input: { storeId: string; paidUntil: string }) => Promise<PlanEndCheck>;
}

/** The plans workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const plansWorkflows = {
  planEnd: defineWorkflow<[PlanEndInput], PlanEndResult>('planEndWorkflow'),
};
