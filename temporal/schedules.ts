import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsStartWorkflowAction, type ScheduleSpec } from '@temporalio/client';
import { OUTBOX_PURGE_BATCH, OUTBOX_RETENTION_DAYS } from '../services/outbox.js';
import { CUT_OFF_AFTER_SECONDS, RATE_LIMIT_WINDOWS_KEPT_SECONDS } from '../services/housekeeping/jobs.js';
import { RETENTION_BATCH, RETENTION_RUN_BUDGET_MS } from '../services/housekeeping/retention.js';
import { HOUSEKEEPING_JOBS, type HousekeepingJob } from '../workflows/housekeeping/definitions.js';
import { workflowIds, workflows } from '../workflows/catalog.js';
import { type WorkflowOf } from '../workflows/hand-off.js';

/** How often each housekeeping job runs, and what its runs say in the Temporal UI. */
export const HOUSEKEEPING: Record<HousekeepingJob, { every: string; summary: string }> = {
  'delivery-sweep': {
    every: '1 minute',
    summary: `settle as failed the webhook deliveries left 'sending' over ${CUT_OFF_AFTER_SECONDS / 60} minutes (a worker died mid-attempt)`,
  },
  'rate-limit-cleanup': {
    every: '1 minute',
    summary: `delete rate-limit windows older than ${RATE_LIMIT_WINDOWS_KEPT_SECONDS / 60} minutes`,
  },
  'outbox-purge': {
    every: '1 hour',
    summary: `delete outbox rows handed over more than ${OUTBOX_RETENTION_DAYS} days ago, ${OUTBOX_PURGE_BATCH} per statement`,
  },
  retention: {
    every: '15 minutes',
    summary: `delete delivery attempts and order events older than WEBHOOK_DELIVERY_RETENTION_DAYS and ORDER_EVENT_RETENTION_DAYS, ${RETENTION_BATCH} per statement, at most ${RETENTION_RUN_BUDGET_MS / 60_000} minutes per table and run`,
  },
};

type HousekeepingAction = ScheduleOptionsStartWorkflowAction<WorkflowOf<typeof workflows.housekeeping>>;

/** The schedule of one job as this version defines it: every run is housekeepingWorkflow(job) on the task queue. */
function scheduleOf(job: HousekeepingJob, taskQueue: string): { spec: ScheduleSpec; action: HousekeepingAction } {
  return {
    spec: { intervals: [{ every: HOUSEKEEPING[job].every }] },
    action: {
      type: 'startWorkflow',
      workflowType: workflows.housekeeping.name,
      args: [job],
      taskQueue,
      // Temporal adds the time of each run: housekeeping/<job>-2026-11-24T12:00:00Z.
      workflowId: workflowIds.housekeeping(job),
      workflowRunTimeout: '15 minutes',
      staticSummary: HOUSEKEEPING[job].summary,
    },
  };
}

// A run still going when the next is due is enough: skip the next. After an outage, one catch-up run at most.
const policies = { overlap: 'SKIP', catchupWindow: '1 minute' } as const;

/**
 * Creates the housekeeping schedules (`housekeeping/<job>`), or brings an existing one to this
 * version's interval and action while keeping its state (paused by an operator stays paused).
 * Idempotent, and safe when several workers start at once: a schedule id exists once per namespace,
 * so the loser of a race to create updates instead. One namespace serves one deployment.
 */
export async function ensureHousekeepingSchedules(client: Client, taskQueue: string): Promise<string[]> {
  await Promise.all(
    HOUSEKEEPING_JOBS.map(async (job) => {
      const scheduleId = workflowIds.housekeeping(job);
      const { spec, action } = scheduleOf(job, taskQueue);
      try {
        await client.schedule.create({ scheduleId, spec, action, policies });
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
        await client.schedule.getHandle(scheduleId).update<WorkflowOf<typeof workflows.housekeeping>>((previous) => ({
          spec,
          action,
          policies: { ...policies, pauseOnFailure: previous.policies.pauseOnFailure },
          state: { paused: previous.state.paused, ...(previous.state.note ? { note: previous.state.note } : {}) },
        }));
      }
    }),
  );
  return HOUSEKEEPING_JOBS.map(workflowIds.housekeeping);
}
