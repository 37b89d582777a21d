import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities, HousekeepingJob, HousekeepingResult, WorkflowOf, workflows } from './definitions.js';

const activities = proxyActivities<HousekeepingActivities>({
  // The outbox purge deletes in batches and heartbeats between them; a worker that died is noticed soon.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  // The next scheduled run comes anyway: a few tries, then the run fails visibly in the UI.
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/** Each job is one activity. */
const JOBS: Record<HousekeepingJob, () => Promise<number>> = {
  'delivery-sweep': activities.sweepCutOffDeliveries,
  'rate-limit-cleanup': activities.purgeRateLimitWindows,
  'outbox-purge': activities.purgeOutbox,
};

/**
 * One run of a housekeeping job, started by its Temporal Schedule (`housekeeping/<job>`), so operators
 * see each run, pause the schedule or trigger it in the Temporal UI. Returns how many rows it changed.
 */
export async function housekeepingWorkflow(job: HousekeepingJob): Promise<HousekeepingResult> {
  return { job, rows: await JOBS[job]() };
}
housekeepingWorkflow satisfies WorkflowOf<typeof workflows.housekeeping>;
