// Pure: imported by workflows, the API, the worker and tests. Nothing here may do I/O.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
  orderEvent: (eventId: string) => `order-event/${eventId}`,
};

export interface OrderEventInput {
  eventId: string;
  storeId: string;
  orderId: string;
  type: string;
}
