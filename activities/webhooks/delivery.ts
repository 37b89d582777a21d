import { openSecret } from '../../domain/secret-box.js';
import { openingKeys } from '../../config/env.js';
import { claimDeliveries, recordDeliveryResults } from '../../services/webhooks/lane.js';
import type { PlannedDelivery, WebhookDeliveryActivities, WebhookDeliveryResult } from '../../workflows/webhooks/definitions.js';
import type { ActivityDeps } from '../deps.js';
import { countDelivery, sendWebhook, webhookBody } from './send.js';

/** Activities of an operator's replay of one webhook delivery. */
export function webhookActivities(deps: ActivityDeps) {
  return {
    /**
     * One delivery on its own: claimed, sent once and recorded (its own workflow, so it can be found by
     * id), on one of the store's outbound turns (deps.outboundBudget).
     */
    async deliverWebhook(planned: PlannedDelivery): Promise<WebhookDeliveryResult> {
      return deps.outboundBudget ? deps.outboundBudget.run(planned.storeId, () => deliverOnce(deps, planned)) : deliverOnce(deps, planned);
    },
  } satisfies WebhookDeliveryActivities;
}

/** Claims the delivery, and when the claim holds sends it once and records the outcome. */
async function deliverOnce(deps: ActivityDeps, planned: PlannedDelivery): Promise<WebhookDeliveryResult> {
  const em = deps.orm.em.fork();
  const [claimed] = await claimDeliveries(em, [planned.deliveryId], null);
  if (!claimed) {
    countDelivery(deps.metrics, 'cancelled');
    return { status: null, outcome: 'cancelled: the endpoint was deleted or the delivery was already attempted' };
  }
  const secret = openSecret(openingKeys(deps.config), claimed.secretSealed);
  const result = await sendWebhook(claimed, webhookBody(claimed, claimed.payload!), secret, deps);
  countDelivery(deps.metrics, result.ok ? 'delivered' : 'failed', result.durationMs);
  await recordDeliveryResults(em, [{ deliveryId: claimed.id, ...result }]);
  return { status: result.status, outcome: result.ok ? 'delivered' : `failed: ${result.error}` };
}
