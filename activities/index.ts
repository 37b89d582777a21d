import type { MikroORM } from '@mikro-orm/postgresql';
import type { ResolvedConfig } from '../config/env.js';
import type { Resolver } from '../services/outbound/target.js';
import { checkoutActivities } from './checkout.js';
import type { LaneWakeups } from './lane-wakeups.js';
import { connectionActivities } from './connections.js';
import { trackingActivities } from './tracking.js';
import { webhookLaneActivities } from './webhook-lane.js';
import { webhookActivities } from './webhooks.js';

export interface ActivityDeps {
  orm: MikroORM;
  config: ResolvedConfig;
  /** DNS for outbound targets; the system resolver unless a test supplies one. */
  resolve?: Resolver;
  /** Notifications that wake running webhook lanes; without them lanes find new events by polling. */
  laneWakeups?: LaneWakeups;
}

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
