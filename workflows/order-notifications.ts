import { proxyActivities } from '@temporalio/workflow';
import type { OrderNotificationActivities, OrderNotificationInput, OrderNotificationResult, WorkflowOf, workflows } from './definitions.js';

// One attempt per message: the activity claims the order's message row before it sends and does nothing
// when the claim exists, so running it again never sends again. It may run again so that a worker that
// died before the claim does not lose the message.
const { sendOrderPush, sendOrderChat } = proxyActivities<OrderNotificationActivities>({
  // Above WEBHOOK_TIMEOUT_MS (at most 60 s) per request; a push goes to at most 20 devices, in parallel.
  startToCloseTimeout: '90 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** `order-push/<order id>`: the new-order notification to the store owners' devices (started once per order, never for backfill). */
export async function orderPushWorkflow(input: OrderNotificationInput): Promise<OrderNotificationResult> {
  return sendOrderPush(input);
}
orderPushWorkflow satisfies WorkflowOf<typeof workflows.orderPush>;

/** `order-chat/<order id>`: the chat message to the shopper of a new order (paid plans; never for backfill). */
export async function orderChatWorkflow(input: OrderNotificationInput): Promise<OrderNotificationResult> {
  return sendOrderChat(input);
}
orderChatWorkflow satisfies WorkflowOf<typeof workflows.orderChat>;
