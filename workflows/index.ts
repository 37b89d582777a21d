// The worker's workflow bundle: every workflow the task queue runs.
export { webhookLaneWorkflow } from './webhook-lane.js';
export { webhookDispatchWorkflow } from './webhook-dispatch.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { connectCodeWorkflow } from './connect-code.js';
export { connectionPushWorkflow } from './connection-push.js';
export { checkoutExpiryWorkflow } from './checkout-expiry.js';
export { trackingLockoutWorkflow } from './tracking-lockout.js';
export { housekeepingWorkflow } from './housekeeping.js';
export { planEndWorkflow } from './plan-end.js';
export { orderPushWorkflow, orderChatWorkflow } from './order-notifications.js';
