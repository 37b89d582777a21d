import type { Scenario } from '../lib/scenario.js';
import { webhookResults } from '../lib/webhook-run.js';

/** Webhook end to end, commit → receipt, p50 at 20 orders/s (the three webhook scenarios share one run: bench/lib/webhook-run.ts). */
export const webhookE2eP50Scenario: Scenario = { id: 'webhook-e2e-p50', run: async (env) => (await webhookResults(env)).p50 };
/** The same run's p99. */
export const webhookE2eP99Scenario: Scenario = { id: 'webhook-e2e-p99', run: async (env) => (await webhookResults(env)).p99 };
/** Deliveries per second with 1,000 orders sent as fast as possible, and the drain time. */
export const webhookThroughputScenario: Scenario = { id: 'webhook-throughput', run: async (env) => (await webhookResults(env)).throughput };
