import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities, HousekeepingJob, HousekeepingResult, housekeepingWorkflows } from './definitions.js';
import type { WorkflowOf } from '../hand-off.js';

const activities = proxyActivities<HousekeepingActivities>({
  // The outbox purge and retention delete in batches and heartbeat between them; a worker that died is noticed soon.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  // The next scheduled run comes anyway: a few tries, then the run fails visibly in the UI.
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/** Each job is one activity (retention: one per table, each shown with its count in the Temporal UI). */
const JOBS: Record<HousekeepingJob, () => Promise<number>> = {
  'delivery-sweep': activities.sweepCutOffDeliveries,
  'rate-limit-cleanup': activities.purgeRateLimitWindows,
  'outbox-purge': activities.purgeOutbox,
  // The delivery log first: an event goes only once no attempt in the log refers to it.
  retention: async () => (await activities.pruneDeliveryLog()) + (await activities.pruneOrderEvents()),
};

/**
 * One run of a housekeeping job, started by its Temporal Schedule (`housekeeping/<job>`), so operators
 * see each run, pause the schedule or trigger it in the Temporal UI. Returns how many rows it changed.
 */
export async function housekeepingWorkflow(job: HousekeepingJob): Promise<HousekeepingResult> {
  return { job, rows: await JOBS[job]() };
}
housekeepingWorkflow satisfies WorkflowOf<typeof housekeepingWorkflows.housekeeping>;
