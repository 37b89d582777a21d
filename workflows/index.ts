// The worker's workflow bundle: every workflow the task queue runs.
export { webhookLaneWorkflow } from './webhooks/lane.js';
export { webhookDispatchWorkflow } from './webhooks/dispatch.js';
export { webhookDeliveryWorkflow } from './webhooks/delivery.js';
export { connectCodeWorkflow } from './connections/connect-code.js';
export { connectionPushWorkflow } from './connections/push.js';
export { checkoutExpiryWorkflow } from './checkout/expiry.js';
export { trackingLockoutWorkflow } from './tracking/lockout.js';
export { housekeepingWorkflow } from './housekeeping/jobs.js';
export { planEndWorkflow } from './plans/plan-end.js';
export { orderPushWorkflow, orderChatWorkflow } from './notifications/order-notifications.js';
