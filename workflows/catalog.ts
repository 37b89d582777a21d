// Pure: every workflow the task queue runs, by its name on the wire, and the readable, deterministic ids
// producers start them under; WorkflowActivities is what createActivities (activities/index.ts) satisfies.
// Each workflow's input, signals and activities are in its feature's definitions.ts. No I/O.
import {
  webhookShards,
  webhookShard,
  webhooksWorkflows,
  type WebhookLaneActivities,
  type WebhookDispatchActivities,
  type WebhookDeliveryActivities,
} from './webhooks/definitions.js';
import { type HousekeepingJob, housekeepingWorkflows, type HousekeepingActivities } from './housekeeping/definitions.js';
import { type ChatOccasion, notificationsWorkflows, type OrderNotificationActivities } from './notifications/definitions.js';
import { connectionsWorkflows, type ConnectCodeActivities, type ConnectionPushActivities } from './connections/definitions.js';
import { checkoutWorkflows, type CheckoutExpiryActivities } from './checkout/definitions.js';
import { trackingWorkflows, type TrackingLockoutActivities } from './tracking/definitions.js';
import { plansWorkflows, type PlanEndActivities } from './plans/definitions.js';

/** Readable, deterministic workflow ids: the outbox relay may start the same one twice and get one run. */
export const workflowIds = {
  /**
   * The workflow that sends a store's webhook deliveries: its shard's dispatcher (webhookDispatch).
   * `webhook-lane/<store id>` workflows (the per-store lanes it replaced) that still run are served too.
   */
  storeWebhookDispatch: (storeId: string, shards = webhookShards.count) =>
    workflowIds.webhookDispatch(webhookShard(storeId, shards), shards),
  /** The dispatcher of one shard of stores (webhookShard): sends every delivery of its stores. */
  webhookDispatch: (shard: number, shards: number) => `webhook-dispatch/${shard}-of-${shards}`,
  /** An attempt an operator asked for again (ordinary deliveries run inside the store's lane). */
  webhookReplay: (eventId: string, endpointId: string, deliveryId: string) =>
    `webhook-delivery/${eventId}/${endpointId}/replay-${deliveryId}`,
  /** The life of one connect code (by its row id, never the code itself). */
  connectCode: (codeId: string) => `connect-code/${codeId}`,
  /** The long-lived push of updates to one connected shop. */
  connectionPush: (connectionId: string) => `connection-push/${connectionId}`,
  /** The expiry of a store's checkout sessions that end by `endsAt` (ISO 8601, a bucket boundary). */
  checkoutExpiry: (storeId: string, endsAt: string) => `checkout-expiry/${storeId}/${endsAt}`,
  /** The wrong-contact lockout of one order number in one store (numbers are shopper-visible, not secrets). */
  trackingLockout: (storeId: string, orderKey: string) => `tracking-lockout/${storeId}/${encodeURIComponent(orderKey)}`,
  /** The end of one store's paid plan: a timer that falls the store back to free. */
  planEnd: (storeId: string) => `plan-end/${storeId}`,
  /** The Temporal Schedule of one housekeeping job; its runs are `housekeeping/<job>-<time>`. */
  housekeeping: (job: HousekeepingJob) => `housekeeping/${job}`,
  /** The mobile push to the store's owners about one new order. */
  orderPush: (orderId: string) => `order-push/${orderId}`,
  /** The chat message to the shopper of one order: when it was created (`order-chat/<id>`) or when it shipped. */
  orderChat: (orderId: string, occasion: ChatOccasion = 'created') =>
    occasion === 'created' ? `order-chat/${orderId}` : `order-chat/${orderId}/${occasion}`,
};

/** Every workflow the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const workflows = {
  ...webhooksWorkflows,
  ...connectionsWorkflows,
  ...checkoutWorkflows,
  ...trackingWorkflows,
  ...housekeepingWorkflows,
  ...plansWorkflows,
  ...notificationsWorkflows,
};

/** Everything some workflow asks of its activities: createActivities (activities/index.ts) satisfies it. */
export type WorkflowActivities = WebhookLaneActivities &
  WebhookDispatchActivities &
  WebhookDeliveryActivities &
  ConnectCodeActivities &
  ConnectionPushActivities &
  CheckoutExpiryActivities &
  TrackingLockoutActivities &
  HousekeepingActivities &
  PlanEndActivities &
  OrderNotificationActivities;
