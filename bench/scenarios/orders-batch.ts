import { alternate } from '../lib/compare.js';
import type { BenchEnv } from '../lib/environment.js';
import { keyRotation } from '../lib/fixtures.js';
import { cpuPerRequestText, measure, type Measured } from '../lib/measure.js';
import { orderInput } from '../lib/order-bodies.js';
import { rssMb } from '../lib/processes.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

const BATCH = 50;
const ITEMS = 3;
/** Batches in flight at once: 4 × 50 orders keeps the API's pool of 10 busy without queueing whole batches past the measurement's end. */
const BATCH_CONNECTIONS = 4;

type Run = Measured & { orders: number; perSec: number };

/** Orders of the bench store whose external id starts with `prefix` (counted in PostgreSQL: exact, whatever each batch result said). */
async function ordersWritten(env: BenchEnv, prefix: string): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>(
    `select count(*)::int as n from orders where store_id = $1 and external_id like $2`,
    [env.store.id, `${prefix}-%`],
  );
  return rows[0]!.n;
}

/** New orders per second through POST /orders/batch (50 a request) vs through single POST /orders, both ours; ratio = batch ÷ single. */
export const ordersBatchScenario: Scenario = {
  id: 'orders-batch',
  async run(env) {
    const nextKey = keyRotation(env.store.keys);
    const rss: number[] = [];
    const batchLoad = async (tag: string, durationSec: number): Promise<Run> => {
      let n = 0;
      const prefix = `orders-batch-b-${tag}`;
      const m = await measure(
        env.oursCpu,
        {
          url: `${env.api.url}/api/v1/orders/batch`,
          method: 'POST',
          connections: BATCH_CONNECTIONS,
          durationSec,
          headers: { 'content-type': 'application/json' },
          next: () => ({
            headers: { authorization: `Bearer ${nextKey()}` },
            body: JSON.stringify({ orders: Array.from({ length: BATCH }, () => orderInput(`${prefix}-${++n}`, ITEMS, null)) }),
          }),
        },
        env.settle,
      );
      // Only the orders of batches answered within the measurement count (a batch still in flight at the end may commit later).
      const orders = Math.min(await ordersWritten(env, prefix), m.ok * BATCH);
      return { ...m, orders, perSec: orders / durationSec };
    };
    const singleLoad = async (tag: string, durationSec: number): Promise<Run> => {
      let n = 0;
      const prefix = `orders-batch-s-${tag}`;
      const m = await measure(
        env.oursCpu,
        {
          url: `${env.api.url}/api/v1/orders`,
          method: 'POST',
          connections: SATURATION_CONNECTIONS,
          durationSec,
          headers: { 'content-type': 'application/json' },
          next: () => ({
            headers: { authorization: `Bearer ${nextKey()}` },
            body: JSON.stringify(orderInput(`${prefix}-${++n}`, ITEMS, null)),
          }),
        },
        env.settle,
      );
      const orders = Math.min(await ordersWritten(env, prefix), m.ok);
      return { ...m, orders, perSec: orders / durationSec };
    };
    await batchLoad('warm', env.warmupSec);
    await singleLoad('warm', env.warmupSec);
    const runs = await alternate<Run>({
      id: 'orders-batch',
      rounds: env.rounds,
      unit: 'orders/s',
      labels: ['batch', 'single'],
      ours: async (round) => {
        const r = await batchLoad(String(round), env.measureSec);
        rss.push(rssMb(env.api.process.pid));
        return r;
      },
      baseline: (round) => singleLoad(String(round), env.measureSec),
      settle: env.settle,
      detail: (b, s) => `non-2xx batch ${b.non2xx + b.errors}, single ${s.non2xx + s.errors}`,
      value: (m) => m.perSec,
      log: env.log,
    });
    const failed = [...runs.ours, ...runs.baseline].reduce((n, r) => n + r.non2xx + r.errors, 0);
    // CPU per request of a batch is per 50 orders: show it per order too.
    const batchCpuPerOrder = median(runs.ours.map((r) => Object.values(r.cpuMs).reduce((a, b) => a + b, 0) / Math.max(1, r.orders)));
    const singleCpuPerOrder = median(runs.baseline.map((r) => Object.values(r.cpuMs).reduce((a, b) => a + b, 0) / Math.max(1, r.orders)));
    const notes =
      `per_s = new orders per second (counted in PostgreSQL), ${ITEMS} items each, ${env.measureSec} s per measurement, both sides ours: ` +
      `"ours" = POST /orders/batch of ${BATCH} over ${BATCH_CONNECTIONS} connections, "baseline" = single POST /orders over ${SATURATION_CONNECTIONS} connections; ratio = batch ÷ single (aim ≥ 3); ` +
      `orders written batch ${runs.ours.map((r) => r.orders).join(', ')}, single ${runs.baseline.map((r) => r.orders).join(', ')}; ` +
      `request p50 batch ${fmt(median(runs.ours.map((r) => r.p50Ms)))} ms, p99 ${fmt(median(runs.ours.map((r) => r.p99Ms)))} ms; single p50 ${fmt(median(runs.baseline.map((r) => r.p50Ms)))} ms, p99 ${fmt(median(runs.baseline.map((r) => r.p99Ms)))} ms; ` +
      `CPU per order (until events are through) batch ${fmt(batchCpuPerOrder)} ms vs single ${fmt(singleCpuPerOrder)} ms; per request batch ${cpuPerRequestText(runs.ours)}, single ${cpuPerRequestText(runs.baseline)}; ` +
      `non-2xx or failed ${failed}; API RSS after each batch measurement ${rss.map((m) => fmt(m)).join(', ')} MB`;
    return summarize(
      'per_s',
      runs.ours.map((r) => r.perSec),
      runs.baseline.map((r) => r.perSec),
      notes,
    );
  },
};
