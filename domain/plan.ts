import type { StorePlan } from './store.js';

/** A store's plan as stored: the plan, and when a paid plan ends (null: it does not end). */
export interface PlanRecord {
  plan: StorePlan;
  paidUntil: Date | string | null;
}

/**
 * The plan a store has at `now`: paid only before its end, free from then on, whether or not the
 * plan-end timer has written the fall back yet (a late timer never keeps paid limits alive).
 */
export function effectivePlan(record: PlanRecord, now: number = Date.now()): StorePlan {
  if (record.plan !== 'paid' || record.paidUntil === null) return record.plan;
  return new Date(record.paidUntil).getTime() > now ? 'paid' : 'free';
}

/**
 * Extras that differ by plan (spec Limits: "tracking page badge, chat order messages on paid only"): the
 * free plan's tracking pages carry the service's badge; chat order messages are for paid plans only.
 */
export const PLAN_EXTRAS: Record<StorePlan, { trackingBadge: boolean; chatMessages: boolean }> = {
  free: { trackingBadge: true, chatMessages: false },
  paid: { trackingBadge: false, chatMessages: true },
};

/** Whether the store's public tracking pages carry the "Tracking by Store Commerce" badge now (free plan, ended paid plans included). */
export function showsTrackingBadge(record: PlanRecord, now: number = Date.now()): boolean {
  return PLAN_EXTRAS[effectivePlan(record, now)].trackingBadge;
}

/** Whether the store may send chat order messages to its shoppers now (the plan in force: an ended paid plan may not). */
export function chatMessagesAllowed(record: PlanRecord, now: number = Date.now()): boolean {
  return PLAN_EXTRAS[effectivePlan(record, now)].chatMessages;
}
