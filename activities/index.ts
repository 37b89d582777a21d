import type { WorkflowActivities } from '../workflows/catalog.js';
import type { ActivityDeps } from './deps.js';
import { checkoutActivities } from './checkout/expiry.js';
import { connectionActivities } from './connections/connections.js';
import { housekeepingActivities } from './housekeeping/jobs.js';
import { planActivities } from './plans/plan-end.js';
import { orderChatActivities } from './notifications/order-chat.js';
import { orderWebPushActivities } from './notifications/order-push.js';
import { trackingActivities } from './tracking/lockout.js';
import { oldWebhookLaneActivities, webhookLaneActivities } from './webhooks/lane.js';
import { webhookActivities } from './webhooks/delivery.js';

/**
 * The only door from workflows to I/O: every activity some workflow asks for (the interfaces in
 * workflows/catalog.ts, which is all that workflows know of activities).
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...webhookLaneActivities(deps),
    ...oldWebhookLaneActivities(deps),
    ...webhookActivities(deps),
    ...trackingActivities(deps),
    ...connectionActivities(deps),
    ...checkoutActivities(deps),
    ...housekeepingActivities(deps),
    ...planActivities(deps),
    ...orderWebPushActivities(deps),
    ...orderChatActivities(deps),
  } satisfies WorkflowActivities;
}

/**
 * The activities that call tenants' receivers (webhook sends and replays, connection update pushes,
 * new-order Web Push, chat messages): what the outbound worker hosts on its own task queue
 * (workflows/outbound/queue.ts), so that they never take an internal timer's activity slot.
 */
export function createOutboundActivities(deps: ActivityDeps) {
  const { pushDueUpdates, replayConnectionUpdates } = connectionActivities(deps);
  return {
    ...webhookLaneActivities(deps),
    ...webhookActivities(deps),
    pushDueUpdates,
    replayConnectionUpdates,
    ...orderWebPushActivities(deps),
    ...orderChatActivities(deps),
  } satisfies Partial<WorkflowActivities>;
}
