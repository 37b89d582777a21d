import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PlannedDelivery } from '../services/webhooks/deliveries.js';

// One attempt, never retried (spec Events 5); the activity records the outcome itself.
const { deliverWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

/** Sends one event to one endpoint once, and returns what happened (also recorded in webhook_deliveries). */
export async function webhookDeliveryWorkflow(planned: PlannedDelivery): Promise<{ status: number | null; outcome: string }> {
  return deliverWebhook(planned);
}
