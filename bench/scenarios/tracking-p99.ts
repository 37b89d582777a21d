import { EARLIER_ORDERS, KEYS_PER_STORE } from '../lib/environment.js';
import { createBenchStore } from '../lib/fixtures.js';
import { seededRandom } from '../lib/order-bodies.js';
import { runPair } from '../lib/pair-scenario.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';

/**
 * GET /tracking?order=<number> p99 under 50 connections at a fixed rate (half the baseline's maximum), for api-source
 * orders (no contact needed, so never the deliberately slowed wrong-contact path) vs Fastify + pg doing the same lookup.
 */
export const trackingP99Scenario: Scenario = {
  id: 'tracking-p99',
  async run(env) {
    // The bench store's 10,000 seeded orders are api orders numbered 100001 … 110000 (bench/lib/fixtures.ts).
    const { rows } = await env.pool.query<{ order_number: string }>(
      `select order_number from orders where store_id = $1 and source = 'api' and order_number ~ '^[0-9]+$' and not archived limit 5000`,
      [env.store.id],
    );
    if (rows.length === 0) throw new Error('tracking-p99: no api orders with a number in the bench store');
    const numbers = rows.map((r) => r.order_number);
    const baseline = await env.startBaseline('pg-catalog', { STORE_ID: env.store.id });
    // The baseline checks keys and counts requests as ours does, against keys of its own (not to push ours toward their limit).
    const twin = await createBenchStore(env.pool, 'Bench Tracking Store twin', KEYS_PER_STORE);
    try {
      const probe = await fetch(`${env.api.url}/api/v1/tracking?order=${numbers[0]}`, {
        headers: { authorization: `Bearer ${env.store.keys[0]}` },
      });
      if (probe.status !== 200) throw new Error(`GET /tracking: HTTP ${probe.status} ${await probe.text()}`);
      const random = seededRandom(7);
      return await runPair({
        id: 'tracking-p99',
        env,
        metric: 'p99_ms',
        baselineUrl: baseline.url,
        baselineCpu: env.baselineCpu(baseline.process),
        path: '/api/v1/tracking',
        connections: SATURATION_CONNECTIONS,
        keys: env.store.keys,
        baselineKeys: twin.keys,
        request: () => ({ path: `/api/v1/tracking?order=${numbers[Math.floor(random() * numbers.length)]}` }),
        what:
          `GET /tracking?order=<number> over ${numbers.length.toLocaleString('en')} api orders (no contact) of a store holding ${EARLIER_ORDERS.toLocaleString('en')}+ orders; ` +
          `baseline: Fastify + pg, the same key check and rate-limit count (keys of a twin store), then the same one-round-trip SELECT (order by number + status history + store name + lockout check), shaped to JSON`,
        aim: '≤ 1.5 (issue 9: GET /tracking ≥ 0.6 of the baseline)',
      });
    } finally {
      await baseline.process.stop();
    }
  },
};
