import { alternate } from '../lib/compare.js';
import { KEYS_PER_STORE } from '../lib/environment.js';
import { createBenchStore, keyRotation, seedOrders } from '../lib/fixtures.js';
import { cpuPerRequestText, measure, type Measured } from '../lib/measure.js';
import type { Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

const ORDERS = 100_000;
/** Enough connections to hold the fixed rate while a response takes up to connections ÷ rate seconds. */
const CONNECTIONS = 20;

/** GET /orders?limit=100 p99 at a fixed rate (half the baseline's maximum) over 100,000 orders; lower is better. */
export const ordersListP99Scenario: Scenario = {
  id: 'orders-list-p99',
  async run(env) {
    const store = await createBenchStore(env.pool, 'Bench List Store', KEYS_PER_STORE);
    const seeded = Date.now();
    await seedOrders(env.pool, store.id, ORDERS);
    env.log(`orders-list-p99: seeded ${ORDERS.toLocaleString('en')} orders in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const baseline = await env.startBaseline('pg-orders', { WRITE_STORE_ID: store.id, READ_STORE_ID: store.id });
    // The baseline checks keys and counts requests as ours does, against keys of its own (not to push ours toward their limit).
    const twin = await createBenchStore(env.pool, 'Bench List Store twin', KEYS_PER_STORE);
    try {
      const nextKey = keyRotation(store.keys);
      const nextBaselineKey = keyRotation(twin.keys);
      const path = '/api/v1/orders?limit=100';
      const ours = (durationSec: number, overallRate?: number) =>
        measure(env.oursCpu, {
          url: `${env.api.url}${path}`,
          connections: CONNECTIONS,
          durationSec,
          overallRate,
          next: () => ({ headers: { authorization: `Bearer ${nextKey()}` } }),
        });
      const baselineCpu = env.baselineCpu(baseline.process);
      const base = (durationSec: number, overallRate?: number) =>
        measure(baselineCpu, {
          url: `${baseline.url}${path}`,
          connections: CONNECTIONS,
          durationSec,
          overallRate,
          next: () => ({ headers: { authorization: `Bearer ${nextBaselineKey()}` } }),
        });
      await ours(env.warmupSec);
      // The baseline's saturation run warms it up and sets the fixed rate.
      const max = await base(Math.max(env.warmupSec, env.quick ? 2 : 5));
      const rate = Math.max(1, Math.floor(max.okPerSec / 2));
      env.log(`orders-list-p99: baseline maximum ${fmt(max.okPerSec)} req/s; measuring p99 at ${rate} req/s`);
      const runs = await alternate<Measured>({
        id: 'orders-list-p99',
        rounds: env.rounds,
        unit: 'ms p99',
        ours: () => ours(env.measureSec, rate),
        baseline: () => base(env.measureSec, rate),
        settle: env.settle,
        detail: (o) => `ours non-2xx ${o.non2xx}, errors ${o.errors}`,
        value: (m) => m.p99Ms,
        log: env.log,
      });
      const failed = runs.ours.reduce((n, r) => n + r.non2xx + r.errors, 0);
      const notes =
        `p99 ms, LOWER is better: ratio = ours p99 ÷ baseline p99 (aim ≤ 2); GET ${path} (first page) of ${ORDERS.toLocaleString('en')} orders, ` +
        `fixed ${rate} req/s = half the baseline's maximum ${fmt(max.okPerSec)} req/s, ${CONNECTIONS} connections, ${env.measureSec} s per measurement; ` +
        `p50 ours ${fmt(median(runs.ours.map((r) => r.p50Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p50Ms)))} ms; ` +
        `2xx req/s achieved ours ${fmt(median(runs.ours.map((r) => r.okPerSec)))} vs baseline ${fmt(median(runs.baseline.map((r) => r.okPerSec)))}; ` +
        `CPU per request ours ${cpuPerRequestText(runs.ours)}, baseline ${cpuPerRequestText(runs.baseline)}; ` +
        `non-2xx or failed ours ${failed}; baseline: Fastify + pg, the same key check and rate-limit count (keys of a twin store), then the same SELECT on the same table (prepared, as ours), rows as JSON`;
      return summarize(
        'p99_ms',
        runs.ours.map((r) => r.p99Ms),
        runs.baseline.map((r) => r.p99Ms),
        notes,
      );
    } finally {
      await baseline.process.stop();
    }
  },
};
