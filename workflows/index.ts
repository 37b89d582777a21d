// The worker's workflow bundle: every workflow the task queue runs.
export { orderEventWorkflow } from './order-event.js';
