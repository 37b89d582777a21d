// Pure: the contract of the order notifications (the owners' mobile push, the shopper's chat message) between
// producers (services, through the outbox), the workflows and the activities: the workflows' names on the
// wire, inputs and results, signals and queries, and the interface of the activities they call. It imports
// nothing of this project outside workflows/. Nothing here may do I/O.
import { defineWorkflow } from '../hand-off.js';

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
  /** Sends the new-order push to every device of the store's owners, once (activities/notifications/order-push.ts). */
  sendOrderPush: (input: OrderNotificationInput) => Promise<OrderNotificationResult>;
  /** Sends the shopper the chat message of the order's occasion, one attempt (activities/notifications/order-chat.ts). */
  sendOrderChat: (input: OrderNotificationInput) => Promise<OrderNotificationResult>;
}

/** The notifications workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const notificationsWorkflows = {
  orderPush: defineWorkflow<[OrderNotificationInput], OrderNotificationResult>('orderPushWorkflow'),
  orderChat: defineWorkflow<[OrderNotificationInput], OrderNotificationResult>('orderChatWorkflow'),
};
