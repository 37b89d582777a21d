// Pure: imported by workflows, the API, the worker and tests. Nothing here may do I/O.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
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
  /** The webhook lane of one store: sends every delivery of the store, each endpoint's events of an order in order. */
  webhookLane: (storeId: string) => `webhook-lane/${storeId}`,
  /** An attempt an operator asked for again (ordinary deliveries run inside the store's lane). */
  webhookReplay: (eventId: string, endpointId: string, deliveryId: string) => `webhook-delivery/${eventId}/${endpointId}/replay-${deliveryId}`,
  /** The life of one connect code (by its row id, never the code itself). */
  connectCode: (codeId: string) => `connect-code/${codeId}`,
  /** The long-lived push of updates to one connected shop. */
  connectionPush: (connectionId: string) => `connection-push/${connectionId}`,
  /** The expiry of a store's checkout sessions that end by `endsAt` (ISO 8601, a bucket boundary). */
  checkoutExpiry: (storeId: string, endsAt: string) => `checkout-expiry/${storeId}/${endsAt}`,
  /** The wrong-contact lockout of one order number in one store (numbers are shopper-visible, not secrets). */
  trackingLockout: (storeId: string, orderKey: string) => `tracking-lockout/${storeId}/${encodeURIComponent(orderKey)}`,
};

export interface WebhookLaneInput {
  storeId: string;
}

/** Events of the store were committed while its lane was idle: send them. Carries nothing; the database is the truth. */
export const deliveriesWaiting = defineSignal('deliveriesWaiting');

export interface ConnectCodeInput {
  codeId: string;
  storeId: string;
  ttlMs: number;
}
/** The code was exchanged for a connection: the code's life is over. */
export const connectCodeExchanged = defineSignal<[{ connectionId: string }]>('connectCodeExchanged');

export interface ConnectionPushInput {
  connectionId: string;
}
/** New updates are waiting for this connection. */
export const updatesQueued = defineSignal('updatesQueued');
/** Operator action (Temporal UI or CLI): send waiting and failed updates again now. */
export const replayUpdates = defineSignal('replayUpdates');

export interface CheckoutExpiryInput {
  storeId: string;
  /** The bucket's end (ISO 8601 UTC): every session of the store still open with expires_at up to it expires then. */
  endsAt: string;
}

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
/** A wrong contact was tried (sent through the outbox after the counter row committed). */
export const wrongContactTried = defineSignal<[TrackingLockoutState]>('wrongContact');
/** Operator action (Temporal UI): end the lockout and forget the wrong tries now. */
export const liftLockout = defineSignal('liftLockout');
/** What the workflow believes now (the database stays the truth). */
export const trackingLockoutState = defineQuery<TrackingLockoutState & { lifted: boolean }>('lockoutState');
