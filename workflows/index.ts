// The worker's workflow bundle: every workflow the task queue runs.
export { orderEventsWorkflow } from './order-events.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
