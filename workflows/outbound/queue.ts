import { patched, proxyActivities, workflowInfo, type ActivityInterfaceFor, type ActivityOptions } from '@temporalio/workflow';

/**
 * The task queue of untrusted outbound work (anything that calls a tenant's receiver: webhook sends,
 * connection update pushes, new-order Web Push, chat messages, webhook replays), derived from the
 * deployment's TEMPORAL_TASK_QUEUE so that no setting is added: `<queue>-outbound`. Its own worker's
 * activity slots are apart from the internal worker's, so no tenant's receivers delay an internal timer.
 */
export function outboundTaskQueue(taskQueue: string): string {
  return `${taskQueue}-outbound`;
}

/** Marks histories whose outbound activities go to the outbound queue (those recorded before it ran them on the main queue). */
export const OUTBOUND_QUEUE_PATCH = 'outbound-task-queue';

/**
 * Retries of a send on the outbound queue: a store whose budget is spent is told to come back (a
 * retryable StoreOutboundBusy with its own short delay), so its sends wait out of any slot, for up to
 * scheduleToClose (attempts unbounded). The activity's claim makes every retry after the one attempt a no-op.
 */
export const OUTBOUND_RETRY = { initialInterval: '1 second', maximumInterval: '20 seconds' } as const;

/**
 * The outbound activities for a workflow: on the outbound queue of the workflow's own task queue
 * (deterministic: workflowInfo().taskQueue is in the history), or, for a history made before the
 * outbound queue existed, on the workflow's queue with the options it was made with. Call it in
 * workflow code, at the point of scheduling, never at module level.
 */
export function outboundActivities<A>(opts: { legacy: ActivityOptions; outbound: ActivityOptions }): ActivityInterfaceFor<A> {
  if (!patched(OUTBOUND_QUEUE_PATCH)) return proxyActivities<A>(opts.legacy);
  return proxyActivities<A>({ ...opts.outbound, taskQueue: outboundTaskQueue(workflowInfo().taskQueue) });
}
