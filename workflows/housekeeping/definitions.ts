// Pure: the contract of the housekeeping jobs (Temporal Schedules) between producers (services, through the
// outbox), the workflows and the activities: the workflows' names on the wire, inputs and results, signals
// and queries, and the interface of the activities they call. It imports nothing of this project outside
// workflows/. Nothing here may do I/O.
import { defineWorkflow } from '../hand-off.js';

/** The periodic jobs, each a Temporal Schedule (`housekeeping/<job>`) that runs housekeepingWorkflow. */
export const HOUSEKEEPING_JOBS = ['delivery-sweep', 'rate-limit-cleanup', 'outbox-purge', 'retention'] as const;

export type HousekeepingJob = (typeof HOUSEKEEPING_JOBS)[number];

/** What one run did: rows changed or removed. */
export interface HousekeepingResult {
  job: HousekeepingJob;
  rows: number;
}

export interface HousekeepingActivities {
  /** Settles as failed the deliveries left 'sending' by a worker that died mid-attempt. */
  sweepCutOffDeliveries: () => Promise<number>;
  /** Deletes rate-limit windows nobody counts in any more. */
  purgeRateLimitWindows: () => Promise<number>;
  /** Deletes outbox rows handed over longer ago than the retention, in small batches. */
  purgeOutbox: () => Promise<number>;
  /** Deletes delivery attempts older than WEBHOOK_DELIVERY_RETENTION_DAYS, in batches, within a time budget. */
  pruneDeliveryLog: () => Promise<number>;
  /** Deletes order events older than ORDER_EVENT_RETENTION_DAYS that no delivery refers to, in batches, within a time budget. */
  pruneOrderEvents: () => Promise<number>;
}

/** The housekeeping workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const housekeepingWorkflows = {
  housekeeping: defineWorkflow<[HousekeepingJob], HousekeepingResult>('housekeepingWorkflow'),
};
