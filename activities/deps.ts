import type { MikroORM } from '@mikro-orm/postgresql';
import type { ResolvedConfig } from '../config/env.js';
import type { Resolver } from '../services/outbound/target.js';
import type { LaneWakeups } from './lane-wakeups.js';
import type { WorkerMetrics } from '../observability/metrics.js';
import type { StoreOutboundBudget, TargetCircuit } from './outbound/budget.js';

/** What every activity may use: the activities' only door to I/O. */
export interface ActivityDeps {
  orm: MikroORM;
  config: ResolvedConfig;
  /** DNS for outbound targets; the system resolver unless a test supplies one. */
  resolve?: Resolver;
  /** Notifications that wake running webhook lanes; without them lanes find new events by polling. */
  laneWakeups?: LaneWakeups;
  /** Aborted when the worker begins to stop: lane runs send what is in flight, give their lease up and end. */
  stopping?: AbortSignal;
  /** Delivery and push counters (METRICS_PORT set); without them nothing is counted. */
  metrics?: WorkerMetrics;
  /** Each store's share of the outbound worker (outbound worker only; without it nothing is limited per store). */
  outboundBudget?: StoreOutboundBudget;
  /** Targets that gave no answer lately (push devices, chat endpoints), skipped while they cool down. */
  circuit?: TargetCircuit;
}
