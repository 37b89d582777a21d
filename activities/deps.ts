import type { MikroORM } from '@mikro-orm/postgresql';
import type { ResolvedConfig } from '../config/env.js';
import type { Resolver } from '../services/outbound/target.js';
import type { LaneWakeups } from './lane-wakeups.js';
import type { WorkerMetrics } from '../config/metrics.js';

/** What every activity may use: the activities' only door to I/O. */
export interface ActivityDeps {
  orm: MikroORM;
  config: ResolvedConfig;
  /** DNS for outbound targets; the system resolver unless a test supplies one. */
  resolve?: Resolver;
  /** Notifications that wake running webhook lanes; without them lanes find new events by polling. */
  laneWakeups?: LaneWakeups;
  /** Delivery and push counters (METRICS_PORT set); without them nothing is counted. */
  metrics?: WorkerMetrics;
}
