// Pure: the contract between producers (services, through the outbox), workflows and activities, as the
// Temporal samples keep their message definitions in one module both sides import. It imports nothing of
// this project, so workflows/ stands below everything that uses it. Nothing here may do I/O.
import { defineSearchAttributeKey, SearchAttributeType, type SignalDefinition } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Search attributes operators filter on in the Temporal Web UI; business ids only, never secrets. */
export const SEARCH_ATTRIBUTES = {
  StoreId: defineSearchAttributeKey('StoreId', SearchAttributeType.KEYWORD),
  OrderId: defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  ConnectionId: defineSearchAttributeKey('ConnectionId', SearchAttributeType.KEYWORD),
  WebhookEndpointId: defineSearchAttributeKey('WebhookEndpointId', SearchAttributeType.KEYWORD),
} as const;
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** Readable, deterministic workflow ids: the outbox relay may start the same one twice and get one run. */
export const workflowIds = {
  /**
   * The workflow that sends a store's webhook deliveries: its shard's dispatcher (webhookDispatch). The
   * name is the old per-store lane's; `webhook-lane/<store id>` workflows that still run are served too.
   */
  webhookLane: (storeId: string, shards = webhookShards.count) => workflowIds.webhookDispatch(webhookShard(storeId, shards), shards),
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

// ---- The webhook dispatchers (one per shard of stores) and the old per-store lane ---------------------

/** How many shard dispatchers send webhooks (WEBHOOK_SHARDS, set once at boot by the API and the worker). */
export const webhookShards = { count: 8 };

/**
 * The shard of a store: a stable hash of its id (the last 32 bits of the UUID, uniformly random for
 * v4 ids) modulo the shard count. SHARD_OF_STORE_SQL computes the same in PostgreSQL.
 */
export function webhookShard(storeId: string, shards: number): number {
  return Number.parseInt(storeId.slice(-8), 16) % shards;
}

/** The dispatcher of shard `shard` out of `shards`. */
export interface WebhookDispatchInput {
  shard: number;
  shards: number;
}
export interface WebhookDispatchActivities {
  /** Sends every waiting delivery of the shard's stores, each claimed before its one POST (activities/webhook-lane.ts). */
  sendShardDeliveries: (input: WebhookDispatchInput) => Promise<LaneOutcome>;
}

export interface WebhookLaneInput {
  storeId: string;
}
/** Events of the store were committed while its lane was idle: send them. Carries nothing; the database is the truth. */
export const deliveriesWaiting = defineSignal('deliveriesWaiting');

/** One attempt as the Temporal UI shows it in the run's result: find a delivery by its id, order or endpoint. */
export interface LaneAttempt {
  delivery: string;
  order: string;
  endpoint: string;
  event: string;
  result: string;
}
export interface LaneOutcome {
  /** The run's attempts, the first DISPATCH.resultAttempts of them (the delivery rows name the run of every one). */
  attempts: LaneAttempt[];
  /** Attempts made in all, and how many of them the list leaves out. */
  made?: number;
  /** Deliveries settled unsent because their endpoint's circuit stayed open too long (docs/webhooks.md). */
  circuitOpen?: number;
  /** Deliveries not claimed because their endpoint was deleted (cancelled). */
  cancelled: number;
  /** True when the run stopped at its limits (work may be left): the workflow runs the activity again at once. */
  more: boolean;
}
export interface WebhookLaneActivities {
  /** Sends every delivery the store has waiting, each claimed before its one POST (activities/webhook-lane.ts). */
  sendLaneDeliveries: (storeId: string) => Promise<LaneOutcome>;
}

// ---- An operator's replay of one webhook delivery --------------------------------------------------

/** One delivery an operator asked to send again (the input of its replay workflow). */
export interface PlannedDelivery {
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  storeId: string;
  orderId: string;
}
export interface WebhookDeliveryResult {
  status: number | null;
  outcome: string;
}
export interface WebhookDeliveryActivities {
  /** Claims, sends once and records one delivery (activities/webhooks.ts). */
  deliverWebhook: (planned: PlannedDelivery) => Promise<WebhookDeliveryResult>;
}

// ---- Connect codes and the push of updates to a connected shop -------------------------------------

export interface ConnectCodeInput {
  codeId: string;
  storeId: string;
  ttlMs: number;
}
export interface ConnectCodeResult {
  outcome: 'exchanged' | 'expired';
  connectionId?: string;
}
/** The code was exchanged for a connection: the code's life is over. */
export const connectCodeExchanged = defineSignal<[{ connectionId: string }]>('connectCodeExchanged');
export interface ConnectCodeActivities {
  /** Expires a connect code that was not used in time; false when it was used. */
  expireConnectCode: (codeId: string) => Promise<boolean>;
}

export interface ConnectionPushInput {
  connectionId: string;
}
/** New updates are waiting for this connection. */
export const updatesQueued = defineSignal('updatesQueued');
/** Operator action (Temporal UI or CLI): send waiting and failed updates again now. */
export const replayUpdates = defineSignal('replayUpdates');
/** What one run of the push activity did. */
export interface UpdatePushOutcome {
  /** Why nothing more will be pushed: the connection is gone, or it pulls only. */
  stopped?: 'disconnected' | 'pull_only';
  sent: number;
  acknowledged: number;
  /** More updates are due right now (another batch). */
  more: boolean;
  /** When the next waiting update is due, if any. */
  nextPushInMs: number | null;
}
export interface ConnectionPushActivities {
  /** The connection's update push to its plugin, in batches while new ones keep coming (activities/update-push-lane.ts); the activity keeps its first name for the workflows already running. */
  pushDueUpdates: (connectionId: string) => Promise<UpdatePushOutcome>;
  /** Marks waiting and failed updates due again; how many. */
  replayConnectionUpdates: (connectionId: string) => Promise<number>;
}

// ---- Checkout expiry ---------------------------------------------------------------------------------

export interface CheckoutExpiryInput {
  storeId: string;
  /** The bucket's end (ISO 8601 UTC): every session of the store still open with expires_at up to it expires then. */
  endsAt: string;
}
export interface CheckoutExpiryActivities {
  /** Expires the open sessions of one store and bucket; the count it expired (idempotent). */
  expireCheckoutBucket: (bucket: CheckoutExpiryInput) => Promise<number>;
}

// ---- The tracking lockout ----------------------------------------------------------------------------

export interface TrackingLockoutInput {
  storeId: string;
  /** The order number without a leading '#' (or the order id when it has none). */
  orderKey: string;
  /** TRACKING_LOCKOUT_SECONDS of the API that wrote the wrong try: the lockout and the counting window. */
  lockoutSeconds: number;
}
/** The database's state of one lockout, as the API or the settling activity saw it. */
export interface TrackingLockoutState {
  wrongCount: number;
  /** Set once the count reached TRACKING_MAX_WRONG_CONTACT: lookups answer 429 until then. */
  lockedUntil: string | null;
  /** When the row is due to be cleared: lockedUntil, or the end of the counting window. */
  expiresAt: string;
}
/** A wrong contact was tried (sent through the outbox after the counter row committed). Named 'wrongContact' on the wire. */
export const wrongContactTried = defineSignal<[TrackingLockoutState]>('wrongContact');
/** Operator action (Temporal UI): end the lockout and forget the wrong tries now. */
export const liftLockout = defineSignal('liftLockout');
/** What the workflow believes now (the database stays the truth). */
export const trackingLockoutState = defineQuery<TrackingLockoutState & { lifted: boolean }>('lockoutState');
export interface TrackingLockoutActivities {
  /** Clears the lockout row if its time is over and returns what remains (null: nothing, the workflow may end). */
  settleTrackingLockout: (input: TrackingLockoutInput) => Promise<TrackingLockoutState | null>;
  /** Clears the lockout row now, whatever its state (an operator lifted the lockout). */
  liftTrackingLockout: (input: TrackingLockoutInput) => Promise<boolean>;
}

// ---- The end of a paid plan ---------------------------------------------------------------------------

export interface PlanEndInput {
  storeId: string;
  /** When the paid plan ends (ISO 8601 UTC); null: it does not end (the workflow has nothing to do). */
  paidUntil: string | null;
}
/** The operator set the store's plan again (`store plan`): the plan now ends at paidUntil, or never (null). */
export const planEndChanged = defineSignal<[{ paidUntil: string | null }]>('planEndChanged');
export interface PlanEndResult {
  /** fell_back: the store is free now; kept: the plan was changed before its end and this timer had nothing to do. */
  outcome: 'fell_back' | 'kept';
  paidUntil: string | null;
}
/** What the plan-end activity found: whether it fell the store back, else the end the store has now (null: none). */
export interface PlanEndCheck {
  fellBack: boolean;
  /** When the store did not fall back: its paid plan's current end (ISO 8601), or null when it is not paid or does not end. */
  paidUntil: string | null;
}
export interface PlanEndActivities {
  /** Sets the store's plan to free if it is still paid and still ends at paidUntil; else reports the end it has now. */
  endPaidPlan: (input: { storeId: string; paidUntil: string }) => Promise<PlanEndCheck>;
}

// ---- Order notifications: mobile push to owners, chat message to the shopper ----------------------------

/** What a chat message is about: the order was created, or it shipped. */
export type ChatOccasion = 'created' | 'shipped';
/** One order to tell about (docs/notifications.md). */
export interface OrderNotificationInput {
  storeId: string;
  orderId: string;
  /** Chat only; absent means 'created' (the input of the first version). */
  occasion?: ChatOccasion;
}
/** How the one attempt ended, as the order's message row records it. */
export interface OrderNotificationResult {
  status: 'sent' | 'failed' | 'skipped' | 'already_claimed';
  detail: string;
}
export interface OrderNotificationActivities {
  /** Sends the new-order push to every device of the store's owners, once (activities/order-push.ts). */
  sendOrderPush: (input: OrderNotificationInput) => Promise<OrderNotificationResult>;
  /** Sends the shopper the chat message of the order's occasion, one attempt (activities/order-chat.ts). */
  sendOrderChat: (input: OrderNotificationInput) => Promise<OrderNotificationResult>;
}

// ---- Housekeeping (Temporal Schedules) -----------------------------------------------------------------

/** The periodic jobs, each a Temporal Schedule (`housekeeping/<job>`) that runs housekeepingWorkflow. */
export const HOUSEKEEPING_JOBS = ['delivery-sweep', 'rate-limit-cleanup', 'outbox-purge', 'retention'] as const;
export type HousekeepingJob = (typeof HOUSEKEEPING_JOBS)[number];
/** What one run did: rows changed or removed. */
export interface HousekeepingResult {
  job: HousekeepingJob;
  rows: number;
}
export interface HousekeepingActivities {
  /** Settles as failed the deliveries left 'sending' by a worker that died mid-attempt. */
  sweepCutOffDeliveries: () => Promise<number>;
  /** Deletes rate-limit windows nobody counts in any more. */
  purgeRateLimitWindows: () => Promise<number>;
  /** Deletes outbox rows handed over longer ago than the retention, in small batches. */
  purgeOutbox: () => Promise<number>;
  /** Deletes delivery attempts older than WEBHOOK_DELIVERY_RETENTION_DAYS, in batches, within a time budget. */
  pruneDeliveryLog: () => Promise<number>;
  /** Deletes order events older than ORDER_EVENT_RETENTION_DAYS that no delivery refers to, in batches, within a time budget. */
  pruneOrderEvents: () => Promise<number>;
}

// ---- The workflows -------------------------------------------------------------------------------------

/**
 * A workflow as producers and the worker both know it, without its code (as defineSignal is to a
 * signal): the name it runs under, which is its export in workflows/index.ts, and its signature, which
 * that export is checked against with `satisfies WorkflowOf<…>`.
 */
export interface WorkflowDefinition<Args extends unknown[] = any[], Result = unknown> {
  readonly type: 'workflow';
  readonly name: string;
  /** Never set: carries the signature for the compiler. */
  readonly signature?: (...args: Args) => Promise<Result>;
}
const defineWorkflow = <Args extends unknown[], Result = void>(name: string): WorkflowDefinition<Args, Result> => ({
  type: 'workflow',
  name,
});
/** The function type a workflow file exports for its definition. */
export type WorkflowOf<D> = D extends WorkflowDefinition<infer A, infer R> ? (...args: A) => Promise<R> : never;

/** Every workflow the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const workflows = {
  webhookLane: defineWorkflow<[WebhookLaneInput]>('webhookLaneWorkflow'),
  webhookDispatch: defineWorkflow<[WebhookDispatchInput]>('webhookDispatchWorkflow'),
  webhookDelivery: defineWorkflow<[PlannedDelivery], WebhookDeliveryResult>('webhookDeliveryWorkflow'),
  connectCode: defineWorkflow<[ConnectCodeInput], ConnectCodeResult>('connectCodeWorkflow'),
  connectionPush: defineWorkflow<[ConnectionPushInput]>('connectionPushWorkflow'),
  checkoutExpiry: defineWorkflow<[CheckoutExpiryInput], { expired: number }>('checkoutExpiryWorkflow'),
  trackingLockout: defineWorkflow<[input: TrackingLockoutInput, carried?: TrackingLockoutState | null]>('trackingLockoutWorkflow'),
  housekeeping: defineWorkflow<[HousekeepingJob], HousekeepingResult>('housekeepingWorkflow'),
  planEnd: defineWorkflow<[PlanEndInput], PlanEndResult>('planEndWorkflow'),
  orderPush: defineWorkflow<[OrderNotificationInput], OrderNotificationResult>('orderPushWorkflow'),
  orderChat: defineWorkflow<[OrderNotificationInput], OrderNotificationResult>('orderChatWorkflow'),
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

// ---- Hand-offs: what producers write to the outbox -----------------------------------------------------

declare const madeByHelper: unique symbol;
/**
 * A start or signal-with-start of a workflow as the outbox keeps it (db/outbox.ts) until the relay hands
 * it over. Built only by startWorkflow and signalWithStart, so its names and arguments were type-checked.
 */
export interface WorkflowHandOff {
  readonly [madeByHelper]: true;
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: Partial<Record<SearchAttributeName, string>>;
  /** One line shown in the Temporal Web UI. */
  summary?: string;
  /** When set, the relay signals the workflow (starting it first if needed). */
  signal?: { name: string; args: unknown[] };
}

/** Marks fields the helpers below checked as a hand-off. */
const handOff = (fields: Omit<WorkflowHandOff, typeof madeByHelper>) => fields as WorkflowHandOff;

interface HandOffOptions<Args extends unknown[]> {
  /** From workflowIds: deterministic, so the relay's retry never starts a second run. */
  workflowId: string;
  args: Args;
  searchAttributes: Partial<Record<SearchAttributeName, string>>;
  summary?: string;
}

/** A hand-off that starts `workflow` once: a start of a running or finished id is a no-op. */
export function startWorkflow<Args extends unknown[]>(
  workflow: WorkflowDefinition<Args, unknown>,
  options: HandOffOptions<NoInfer<Args>>,
): WorkflowHandOff {
  return handOff({ workflowType: workflow.name, ...options });
}

/** A hand-off that sends `signal` to `workflow`, starting it with `args` first if it is not running. */
export function signalWithStart<Args extends unknown[], SignalArgs extends unknown[]>(
  workflow: WorkflowDefinition<Args, unknown>,
  options: HandOffOptions<NoInfer<Args>> & { signal: SignalDefinition<SignalArgs>; signalArgs: NoInfer<SignalArgs> },
): WorkflowHandOff {
  const { signal, signalArgs, ...rest } = options;
  return handOff({ workflowType: workflow.name, ...rest, signal: { name: signal.name, args: signalArgs } });
}
