import { openSecret } from '../domain/secret-box.js';
import { serviceSignature, standardWebhookSignature } from '../domain/webhook-signature.js';
import { postOnce, USER_AGENT } from '../services/outbound/send.js';
import { claimDelivery, planOrderDeliveries, recordDeliveryResult, type PlannedDelivery } from '../services/webhooks/deliveries.js';
import type { ActivityDeps } from './index.js';

/** Activities of order events and webhook delivery. */
export function webhookActivities({ orm, config, resolve }: ActivityDeps) {
  return {
    /** Takes the order's new events and plans their deliveries (idempotent: returns what is still pending). */
    async planOrderDeliveries(orderId: string): Promise<PlannedDelivery[]> {
      return planOrderDeliveries(orm.em.fork(), orderId);
    },

    /** The single attempt of one delivery: signed POST to the checked, pinned address; the outcome is recorded. */
    async deliverWebhook(planned: PlannedDelivery): Promise<{ status: number | null; outcome: string }> {
      const em = orm.em.fork();
      const claimed = await claimDelivery(em, planned.deliveryId);
      if (!claimed) return { status: null, outcome: 'cancelled: the endpoint was deleted or the delivery was already attempted' };
      const secret = openSecret(config.secretsKey, claimed.secretSealed);
      const body = JSON.stringify({
        id: claimed.eventId,
        type: claimed.eventType,
        created_at: new Date(claimed.eventCreatedAt).toISOString(),
        data: { order: claimed.payload },
      });
      const timestamp = Math.floor(Date.now() / 1000);
      const result = await postOnce({
        url: claimed.url,
        body,
        timeoutMs: config.webhookTimeoutMs,
        policy: { allowLoopback: config.allowLoopbackTargets },
        ...(resolve ? { resolve } : {}),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-service-event': claimed.eventType,
          'x-service-delivery': claimed.id,
          'x-service-signature': serviceSignature(secret, body),
          // Standard Webhooks: webhook-id stays the same when a message is sent again (an operator's
          // replay), so receivers can deduplicate on it; X-Service-Delivery names each attempt.
          'webhook-id': claimed.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': standardWebhookSignature(secret, claimed.eventId, timestamp, body),
        },
      });
      await recordDeliveryResult(em, claimed.id, result);
      return { status: result.status, outcome: result.ok ? 'delivered' : `failed: ${result.error}` };
    },
  };
}
