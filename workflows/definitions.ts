// Pure: imported by workflows, the API, the worker and tests. Nothing here may do I/O.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineSignal } from '@temporalio/workflow';

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
  /** The sequencer of one order's events: deliveries of one order reach an endpoint in event order. */
  orderEvents: (orderId: string) => `order-events/${orderId}`,
  /** The one attempt of one event to one endpoint. */
  webhookDelivery: (eventId: string, endpointId: string) => `webhook-delivery/${eventId}/${endpointId}`,
  /** An attempt an operator asked for again. */
  webhookReplay: (eventId: string, endpointId: string, deliveryId: string) => `webhook-delivery/${eventId}/${endpointId}/replay-${deliveryId}`,
};

export interface OrderEventsInput {
  orderId: string;
  storeId: string;
}

/** New events of the order were committed: look for them. Carries nothing; the database is the truth. */
export const orderEventsArrived = defineSignal('orderEventsArrived');
