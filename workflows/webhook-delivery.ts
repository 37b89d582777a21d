import { proxyActivities } from '@temporalio/workflow';
import type { PlannedDelivery, WebhookDeliveryActivities, WebhookDeliveryResult, WorkflowOf, workflows } from './definitions.js';

// One attempt: the activity claims the delivery (pending → sending) before its single POST and does
// nothing when the claim fails, so running the activity again never sends again. It may run again, so
// that a worker that died before the claim does not leave it pending forever.
const { deliverWebhook } = proxyActivities<WebhookDeliveryActivities>({
  // Above WEBHOOK_TIMEOUT_MS (at most 60 s, DNS included): a dead worker's attempt is given up soon after.
  startToCloseTimeout: '75 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/**
 * An operator's replay of one delivery (CLI `webhooks replay`, dashboard): sends the event to the
 * endpoint once more and returns what happened (also recorded in webhook_deliveries). Ordinary
 * deliveries run inside the store's webhook lane (`webhook-lane/<store id>`).
 */
export async function webhookDeliveryWorkflow(planned: PlannedDelivery): Promise<WebhookDeliveryResult> {
  return deliverWebhook(planned);
}
webhookDeliveryWorkflow satisfies WorkflowOf<typeof workflows.webhookDelivery>;
