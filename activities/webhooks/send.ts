import type { ResolvedConfig } from '../../config/env.js';
import { targetPolicy } from '../../config/env.js';
import type { WebhookDelivery as WebhookDeliverySchema } from '../../contract/schemas/webhooks.js';
import type { z } from '../../contract/zod.js';
import type { DeliveryOutcome, WorkerMetrics } from '../../observability/metrics.js';
import { serviceSignature, standardWebhookSignature } from '../../domain/webhook-signature.js';
import { postOnce, USER_AGENT, type OutboundAgents, type OutboundResult } from '../../services/outbound/send.js';
import type { Resolver } from '../../services/outbound/target.js';
import type { ClaimedDelivery } from '../../services/webhooks/lane.js';

type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/**
 * The webhook body of an event, as the bytes sent: its order snapshot (JSON text from the database) is
 * put in as it is, never re-parsed, and encoded once; both signatures and the POST use these bytes.
 */
export function webhookBody(event: { eventId: string; eventType: string; eventCreatedAt: Date }, payload: string): Buffer {
  // The document's WebhookDelivery (contract/schemas/webhooks.ts) is this body's shape: the head here, data.order below.
  const fields: Omit<WebhookDelivery, 'data'> = {
    id: event.eventId,
    type: event.eventType as WebhookDelivery['type'],
    created_at: new Date(event.eventCreatedAt).toISOString(),
  };
  const head = JSON.stringify(fields);
  const open = `${head.slice(0, -1)},"data":{"order":`;
  const close = '}}';
  const body = Buffer.allocUnsafe(Buffer.byteLength(open) + Buffer.byteLength(payload) + close.length);
  let at = body.write(open);
  at += body.write(payload, at);
  body.write(close, at);
  return body;
}

/** Counts one delivery attempt (or one not attempted: cancelled) when metrics are kept. */
export function countDelivery(metrics: WorkerMetrics | undefined, outcome: DeliveryOutcome, durationMs?: number): void {
  if (!metrics) return;
  metrics.deliveries.inc({ outcome });
  if (durationMs !== undefined) metrics.deliveryDuration.observe({ outcome }, durationMs / 1000);
}

/**
 * The single attempt of one claimed delivery: a signed POST to the checked, pinned address, no
 * redirects, within WEBHOOK_TIMEOUT_MS. Never retried here.
 */
export function sendWebhook(
  claimed: ClaimedDelivery,
  body: Buffer,
  secret: string,
  deps: {
    config: Pick<ResolvedConfig, 'webhookTimeoutMs' | 'allowLoopbackTargets' | 'outboundExtraPorts'>;
    resolve?: Resolver | undefined;
    agents?: OutboundAgents;
  },
): Promise<OutboundResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  return postOnce({
    url: claimed.url,
    body,
    timeoutMs: deps.config.webhookTimeoutMs,
    policy: targetPolicy(deps.config),
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
    ...(deps.agents ? { agents: deps.agents } : {}),
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
}
