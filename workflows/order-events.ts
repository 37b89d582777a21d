import { ChildWorkflowFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { allHandlersFinished, condition, continueAsNew, executeChild, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PlannedDelivery } from '../services/webhooks/deliveries.js';
import { orderEventsArrived, SEARCH_ATTRIBUTES, workflowIds, type OrderEventsInput } from './definitions.js';
import { webhookDeliveryWorkflow } from './webhook-delivery.js';

const { planOrderDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** How long a quiet sequencer waits for more events before it ends (the next event starts a new run). */
const IDLE = '30 seconds';

/**
 * Sequences one order's events: takes the events committed so far, in order, and runs each event's
 * deliveries (one child workflow per endpoint) before the next event's, so an endpoint sees them in order.
 */
export async function orderEventsWorkflow(input: OrderEventsInput): Promise<void> {
  let wake = true;
  setHandler(orderEventsArrived, () => {
    wake = true;
  });
  for (;;) {
    if (!wake && !(await condition(() => wake, IDLE))) return;
    wake = false;
    const planned = await planOrderDeliveries(input.orderId);
    for (const group of groupByEvent(planned)) await Promise.all(group.map(deliver));
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof orderEventsWorkflow>(input);
    }
  }
}

async function deliver(planned: PlannedDelivery): Promise<void> {
  try {
    await executeChild(webhookDeliveryWorkflow, {
      workflowId: workflowIds.webhookDelivery(planned.eventId, planned.endpointId),
      args: [planned],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.StoreId, value: planned.storeId },
        { key: SEARCH_ATTRIBUTES.OrderId, value: planned.orderId },
        { key: SEARCH_ATTRIBUTES.EventType, value: planned.eventType },
        { key: SEARCH_ATTRIBUTES.WebhookEndpointId, value: planned.endpointId },
      ],
      staticSummary: `${planned.eventType} to endpoint ${planned.endpointId}`,
    });
  } catch (err) {
    // Started before a crash of this sequencer: that attempt was made (or is being made); never twice.
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    // The attempt itself failed (its worker died mid-request and the activity timed out): that was the
    // one attempt (never retried), and the order's later events must still go out.
    if (err instanceof ChildWorkflowFailure) return;
    throw err;
  }
}

function groupByEvent(planned: PlannedDelivery[]): PlannedDelivery[][] {
  const groups = new Map<string, PlannedDelivery[]>();
  for (const p of planned) groups.set(p.eventId, [...(groups.get(p.eventId) ?? []), p]);
  return [...groups.values()];
}
