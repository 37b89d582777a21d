import type {
  OrderNotificationActivities,
  OrderNotificationInput,
  OrderNotificationResult,
  notificationsWorkflows,
} from './definitions.js';
import type { WorkflowOf } from '../hand-off.js';
import { OUTBOUND_RETRY, outboundActivities } from '../outbound/queue.js';

// One attempt per message: the activity claims the order's message row before it sends and does nothing
// when the claim exists, so running it again never sends again. It may run again so that a worker that
// died before the claim does not lose the message.
const activities = () =>
  outboundActivities<OrderNotificationActivities>({
    // Above WEBHOOK_TIMEOUT_MS (at most 60 s) per request; a push goes to at most 20 devices, in parallel.
    legacy: { startToCloseTimeout: '90 seconds', retry: { maximumAttempts: 3, initialInterval: '1 second' } },
    // A store over its outbound budget waits out of any slot, for up to half an hour.
    outbound: { startToCloseTimeout: '90 seconds', scheduleToCloseTimeout: '30 minutes', retry: OUTBOUND_RETRY },
  });

/** `order-push/<order id>`: the new-order notification to the store owners' devices (started once per order, never for backfill). */
export async function orderPushWorkflow(input: OrderNotificationInput): Promise<OrderNotificationResult> {
  return activities().sendOrderPush(input);
}
orderPushWorkflow satisfies WorkflowOf<typeof notificationsWorkflows.orderPush>;

/** `order-chat/<order id>`: the chat message to the shopper of a new order (paid plans; never for backfill). */
export async function orderChatWorkflow(input: OrderNotificationInput): Promise<OrderNotificationResult> {
  return activities().sendOrderChat(input);
}
orderChatWorkflow satisfies WorkflowOf<typeof notificationsWorkflows.orderChat>;
