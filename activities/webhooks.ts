import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { openSecret } from '../domain/secret-box.js';
import { serviceSignature, standardWebhookSignature } from '../domain/webhook-signature.js';
import { postOnce, USER_AGENT } from '../services/outbound/send.js';
import { claimDelivery, planOrderDeliveries, recordDeliveryResult, type PlannedDelivery } from '../services/webhooks/deliveries.js';
import type { ActivityDeps } from './index.js';

/** What one delivery did, as the Temporal UI shows it in the activity's result. */
export interface DeliveryOutcome {
  deliveryId: string;
  eventType: string;
  endpointId: string;
  status: number | null;
  outcome: string;
}

/** Activities of order events and webhook delivery. */
export function webhookActivities({ orm, config, resolve }: ActivityDeps) {
  /** The single attempt of one delivery: signed POST to the checked, pinned address; the outcome is recorded. */
  async function deliverOnce(em: EntityManager, planned: PlannedDelivery): Promise<DeliveryOutcome> {
    const described = { deliveryId: planned.deliveryId, eventType: planned.eventType, endpointId: planned.endpointId };
    const claimed = await claimDelivery(em, planned.deliveryId);
    if (!claimed) return { ...described, status: null, outcome: 'cancelled: the endpoint was deleted or the delivery was already attempted' };
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
    return { ...described, status: result.status, outcome: result.ok ? 'delivered' : `failed: ${result.error}` };
  }

  return {
    /**
     * Takes the order's new events, plans their deliveries and sends them: the endpoints of one event
     * in parallel, the events one after another. Safe to run again: planning returns only deliveries
     * still pending, and each is claimed before its one POST.
     */
    async deliverOrderEvents(orderId: string): Promise<DeliveryOutcome[]> {
      const em = orm.em.fork();
      const ctx = Context.current();
      // Heartbeats prove this worker is alive while a slow endpoint holds the activity.
      const beat = setInterval(() => ctx.heartbeat(), 10_000);
      try {
        const outcomes: DeliveryOutcome[] = [];
        for (const group of groupByEvent(await planOrderDeliveries(em, orderId))) {
          outcomes.push(...(await Promise.all(group.map((planned) => deliverOnce(em.fork(), planned)))));
        }
        return outcomes;
      } finally {
        clearInterval(beat);
      }
    },

    /** One delivery on its own: an operator's replay (its own workflow, so it can be found by id). */
    async deliverWebhook(planned: PlannedDelivery): Promise<{ status: number | null; outcome: string }> {
      const { status, outcome } = await deliverOnce(orm.em.fork(), planned);
      return { status, outcome };
    },
  };
}

function groupByEvent(planned: PlannedDelivery[]): PlannedDelivery[][] {
  const groups = new Map<string, PlannedDelivery[]>();
  for (const p of planned) groups.set(p.eventId, [...(groups.get(p.eventId) ?? []), p]);
  return [...groups.values()];
}
