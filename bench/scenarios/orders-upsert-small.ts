import { upsertScenario } from '../lib/upsert-scenario.js';

/** POST /orders with 3 items: upserts per second vs the Fastify + pg baseline. */
export const ordersUpsertSmallScenario = upsertScenario('orders-upsert-small', 3, 0.5);
