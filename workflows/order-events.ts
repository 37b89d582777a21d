import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { orderEventsArrived, type OrderEventsInput } from './definitions.js';

// One activity per wake plans the order's new events and sends them, each delivery claimed (pending →
// sending) before its single POST, so a retried activity never sends a delivery twice and picks up the
// ones a dead worker had not claimed. Measured against a child workflow per delivery (bench/README.md):
// the child workflows cost the worker and the Temporal server ~50 ms of CPU per delivery.
const { deliverOrderEvents } = proxyActivities<Activities>({
  // Each POST is bounded by WEBHOOK_TIMEOUT_MS (at most 60 s); the activity heartbeats while it works,
  // so a worker that died is noticed after the heartbeat timeout, not after the whole limit.
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '90 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  summary: 'plan and send the order’s new webhook deliveries',
});

/**
 * Sequences one order's events: takes the events committed so far, in order, and sends each event to
 * its endpoints before the next event, so an endpoint sees them in order. Ends as soon as no event is
 * waiting; the next event starts a new run (signal-with-start), and a signal that lands while this run
 * completes makes Temporal reject the completion, so none is missed.
 */
export async function orderEventsWorkflow(input: OrderEventsInput): Promise<void> {
  let wake = true;
  setHandler(orderEventsArrived, () => {
    wake = true;
  });
  while (wake) {
    wake = false;
    await deliverOrderEvents(input.orderId);
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof orderEventsWorkflow>(input);
    }
  }
}
