import type { PlannedDelivery, WebhookDeliveryActivities, WebhookDeliveryResult, webhooksWorkflows } from './definitions.js';
import type { WorkflowOf } from '../hand-off.js';
import { OUTBOUND_RETRY, outboundActivities } from '../outbound/queue.js';

// One attempt: the activity claims the delivery (pending → sending) before its single POST and does
// nothing when the claim fails, so running the activity again never sends again. It may run again, so
// that a worker that died before the claim does not leave it pending forever.
const activities = () =>
  outboundActivities<WebhookDeliveryActivities>({
    // Above WEBHOOK_TIMEOUT_MS (at most 60 s, DNS included): a dead worker's attempt is given up soon after.
    legacy: { startToCloseTimeout: '75 seconds', retry: { maximumAttempts: 3, initialInterval: '1 second' } },
    // A store over its outbound budget waits out of any slot, for up to half an hour.
    outbound: { startToCloseTimeout: '75 seconds', scheduleToCloseTimeout: '30 minutes', retry: OUTBOUND_RETRY },
  });

/**
 * An operator's replay of one delivery (CLI `webhooks replay`, dashboard): sends the event to the
 * endpoint once more and returns what happened (also recorded in webhook_deliveries). Ordinary
 * deliveries run inside the store's webhook lane (`webhook-lane/<store id>`).
 */
export async function webhookDeliveryWorkflow(planned: PlannedDelivery): Promise<WebhookDeliveryResult> {
  return activities().deliverWebhook(planned);
}
webhookDeliveryWorkflow satisfies WorkflowOf<typeof webhooksWorkflows.webhookDelivery>;
