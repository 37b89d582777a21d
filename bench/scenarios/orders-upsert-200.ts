import { upsertScenario } from '../lib/upsert-scenario.js';

/** POST /orders with 200 items (issue 9): upserts per second vs the Fastify + pg baseline. */
export const ordersUpsert200Scenario = upsertScenario('orders-upsert-200', 200, 0.6);
