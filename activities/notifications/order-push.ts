import { openingKeys, targetPolicy } from '../../config/env.js';
import webpush from 'web-push';
import { postOnce, type OutboundResult } from '../../services/outbound/send.js';
import { claimOrderMessage, finishOrderMessage } from '../../services/notifications/order-messages.js';
import { orderFacts } from '../../services/notifications/order-facts.js';
import { deletePushSubscriptionsById, listPushSubscriptions } from '../../services/notifications/push-subscriptions.js';
import { vapidKeys, vapidSubject } from '../../services/notifications/vapid.js';
import type { OrderNotificationInput, OrderNotificationResult } from '../../workflows/notifications/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** How long a push service keeps a notification for a device that is offline: a day, then a new order is old news. */
const WEB_PUSH_TTL_SECONDS = 86_400;

/**
 * A push service answers within a second or two: a device's POST is given at most this long (or
 * WEBHOOK_TIMEOUT_MS when shorter), all devices at once, so 20 devices that hang hold the send this long, not 20 × it.
 */
export const WEB_PUSH_DEVICE_TIMEOUT_MS = 4000;

/** The new-order push to the store owners' devices (Web Push: VAPID, RFC 8291 aes128gcm). */
export function orderWebPushActivities(deps: ActivityDeps) {
  return {
    /**
     * Claims the order's push, then sends one encrypted notification to each subscribed device at once
     * through the outbound rules of webhooks (checked and pinned address, no redirects), each within
     * WEB_PUSH_DEVICE_TIMEOUT_MS. Devices the push service says are gone (404, 410) are forgotten; a device
     * that gave no answer lately is skipped while it cools down (deps.circuit). Runs on one of the
     * store's outbound turns (deps.outboundBudget).
     */
    async sendOrderPush(input: OrderNotificationInput): Promise<OrderNotificationResult> {
      return deps.outboundBudget ? deps.outboundBudget.run(input.storeId, () => pushOnce(deps, input)) : pushOnce(deps, input);
    },
  };
}

/** The push of one order (claimed once), to every device at once. */
async function pushOnce(deps: ActivityDeps, input: OrderNotificationInput): Promise<OrderNotificationResult> {
  const em = deps.orm.em.fork();
  const claim = await claimOrderMessage(em, { ...input, channel: 'push', occasion: 'created' });
  if (!claim) return { status: 'already_claimed', detail: 'this order’s push was already attempted' };
  const finish = async (status: 'sent' | 'failed' | 'skipped', detail: string) => {
    await finishOrderMessage(em, claim, status, detail);
    return { status, detail };
  };
  const [facts, devices] = await Promise.all([orderFacts(em, input.storeId, input.orderId), listPushSubscriptions(em, input.storeId)]);
  if (!facts) return finish('skipped', 'the order no longer exists');
  if (devices.length === 0) return finish('skipped', 'no device has notifications on');
  const keys = await vapidKeys(em, openingKeys(deps.config));
  const payload = JSON.stringify({
    title: `New order ${facts.number}`,
    body: `${facts.total}${facts.customerName ? ` · ${facts.customerName}` : ''} · ${facts.storeName}`,
    url: `/dashboard/stores/${input.storeId}/orders/${input.orderId}`,
    order_id: input.orderId,
  });
  const timeoutMs = Math.min(deps.config.webhookTimeoutMs, WEB_PUSH_DEVICE_TIMEOUT_MS);
  const cooling = devices.filter((d) => deps.circuit?.isOpen(`${input.storeId} ${d.endpoint}`));
  const results = await Promise.all(
    devices.map(async (d): Promise<OutboundResult> => {
      if (cooling.includes(d))
        return { status: null, ok: false, error: 'skipped: the device gave no answer lately', durationMs: 0, reply: '' };
      const request = webpush.generateRequestDetails({ endpoint: d.endpoint, keys: { p256dh: d.p256dh, auth: d.auth } }, payload, {
        vapidDetails: { subject: vapidSubject(deps.config.publicUrl), publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: WEB_PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        urgency: 'high',
      });
      const result = await postOnce({
        url: d.endpoint,
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), String(v)])),
        body: request.body,
        timeoutMs,
        policy: targetPolicy(deps.config),
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
      });
      deps.circuit?.record(`${input.storeId} ${d.endpoint}`, result.status !== null);
      return result;
    }),
  );
  const gone = devices.filter((_, i) => results[i]!.status === 404 || results[i]!.status === 410).map((d) => d.id);
  await deletePushSubscriptionsById(em, gone);
  const sent = results.filter((r) => r.ok).length;
  const errors = [...new Set(results.filter((r) => !r.ok).map((r) => r.error))].join('; ');
  const detail = `delivered to ${sent} of ${devices.length} device(s)${errors ? `; ${errors}` : ''}${gone.length ? `; ${gone.length} gone, forgotten` : ''}`;
  return finish(sent > 0 ? 'sent' : 'failed', detail);
}
