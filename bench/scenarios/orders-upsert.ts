import { upsertScenario } from '../lib/upsert-scenario.js';

/** POST /orders with 20 items (issue 3): upserts per second vs the Fastify + pg baseline. */
export const ordersUpsertScenario = upsertScenario('orders-upsert', 20, 0.4);
