import type { Scenario } from '../lib/scenario.js';
import { webhookResults } from '../lib/webhook-run.js';

/** Webhook end to end, response → receipt (the commit precedes the response), p50 at 20 orders/s (the three webhook scenarios share one run: bench/lib/webhook-run.ts). */
export const webhookE2eP50Scenario: Scenario = { id: 'webhook-e2e-p50', run: async (env) => (await webhookResults(env)).p50 };
/** The same run's p99. */
export const webhookE2eP99Scenario: Scenario = { id: 'webhook-e2e-p99', run: async (env) => (await webhookResults(env)).p99 };
/** Burst deliveries per second: 1,000 orders created as fast as 20 POSTs allow (≈ 3 × the ingest rate); kept under its contract id, webhook-sustained is the throughput figure. */
export const webhookThroughputScenario: Scenario = { id: 'webhook-throughput', run: async (env) => (await webhookResults(env)).throughput };
