import type { ActivityDeps } from './deps.js';
import { checkoutActivities } from './checkout.js';
import { connectionActivities } from './connections.js';
import { trackingActivities } from './tracking.js';
import { webhookLaneActivities } from './webhook-lane.js';
import { webhookActivities } from './webhooks.js';

/** The only door from workflows to I/O; workflows import just the type. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...webhookLaneActivities(deps),
    ...webhookActivities(deps),
    ...trackingActivities(deps),
    ...connectionActivities(deps),
    ...checkoutActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
