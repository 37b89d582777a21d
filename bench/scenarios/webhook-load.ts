// Throughput of the webhook pipeline (issue 22): sustained step load with a flat backlog, the drain of a
// backlog written while no worker ran, and cold starts. Black-box like the day scenarios.
import { measureCpu } from '../lib/cpu.js';
import type { BenchEnv } from '../lib/environment.js';
import {
  cpuPerDelivery,
  DayReceivers,
  idleCpu,
  latencies,
  latencyText,
  now,
  OrderSender,
  percentile,
  seedDayStores,
  type DayStore,
} from '../lib/many-stores.js';
import { orderInput } from '../lib/order-bodies.js';
import { spawnNode, startScriptArgs } from '../lib/processes.js';
import type { Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GOAL_NOTE = 'baseline = the goal of issue 22 (not a measurement), so the ratio reads as ours ÷ goal';
// The issue's steps (50 → 100 → 200 → 400) with two more: at 300, or between 600 and 1,200 deliveries/s the
// figure would jump over the goal of 900 without measuring it; at 350, because a step's figure is what arrived
// during it, which is a hair under what it offered (the last orders' deliveries land after its end: 899.9 of
// 900 at 300 orders/s), so a step that merely meets 900 reads as a miss, and one above it says whether it is met.
const STEPS = [50, 100, 200, 300, 350, 400];

/** Orders at a constant rate, each to the next store in turn, for `seconds` (open loop). */
async function steadyLoad(sender: OrderSender, stores: DayStore[], rate: number, seconds: number): Promise<void> {
  const started = now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - now();
    if (wait > 1) await sleep(wait);
    sender.post(stores[i % stores.length]!);
  }
  await sleep(Math.max(0, started + seconds * 1000 - now()));
}

/**
 * Step load: 100 stores × 3 endpoints at 50 → 100 → 200 → 300 → 400 orders/s, each step 60 s (10 s in quick);
 * the figure is the deliveries/s of the highest step whose backlog stayed flat and whose p99 was ≤ 1 s.
 */
export const webhookSustainedScenario: Scenario = {
  id: 'webhook-sustained',
  async run(env) {
    const receivers = new DayReceivers();
    await receivers.start();
    try {
      // 20 keys a store: 400 orders/s over 100 stores stays under the paid plan's 300 requests a minute per key.
      const stores = await seedDayStores(env.pool, env.secretsKey, receivers, {
        count: 100,
        keysPerStore: 20,
        label: 'sustained',
        endpoints: () => ['ok', 'ok', 'ok'],
      });
      await env.settle();
      const idle = await idleCpu(env.oursCpu, env.quick ? 3 : 5);
      const stepSec = env.quick ? 10 : 60;
      const lines: string[] = [];
      let best: { rate: number; perSec: number; cpu: string } | undefined;
      const steps: { rate: number; sender: OrderSender; flat: boolean; perSec: number; cpu: string }[] = [];
      const backlog = () => steps.reduce((n, s) => n + s.sender.expected(), 0) - receivers.count;
      for (const rate of STEPS) {
        const sender = new OrderSender(env.api.url, `sus-${rate}-${Date.now().toString(36)}`);
        const step = { rate, sender, flat: false, perSec: 0, cpu: '' };
        steps.push(step);
        const before = receivers.count;
        const t0 = now();
        let mid = 0;
        const { cpuMs } = await measureCpu(env.oursCpu, async () => {
          const half = sleep((stepSec * 1000) / 2).then(() => (mid = backlog()));
          await steadyLoad(sender, stores, rate, stepSec);
          await half;
        });
        const seconds = (now() - t0) / 1000;
        const end = backlog();
        const delivered = receivers.count - before;
        step.perSec = delivered / seconds;
        step.cpu = cpuPerDelivery(cpuMs, idle, seconds, delivered).text;
        // Flat: the API took the step's orders (≥ 95 % committed by its end; an overloaded API that answers 503 or
        // late builds no delivery backlog, yet keeps nothing up) and the delivery backlog at the step's end is no
        // larger than at its middle plus one second of offered deliveries.
        const offered = Math.round(rate * stepSec);
        const taken = sender.committed.size >= 0.95 * offered;
        const backlogFlat = end <= mid + rate * 3;
        step.flat = taken && backlogFlat;
        // Says which rule a step missed: a backlog that shrank is not "growing" when the API fell behind.
        const verdict = step.flat
          ? 'flat'
          : !taken
            ? `missed: under 95 % committed${backlogFlat ? ', the backlog itself flat' : ', backlog growing'}`
            : 'growing';
        lines.push(
          `${rate} orders/s: ${sender.committed.size} of ${offered} committed by the step's end (${sender.failed} failed${sender.firstError ? `, the first: ${sender.firstError}` : ''}), ${fmt(step.perSec)} deliveries/s, backlog mid ${mid} → end ${end} (${verdict}), CPU ${step.cpu}`,
        );
        env.log(`webhook-sustained: ${lines.at(-1)}`);
        if (!step.flat) break;
      }
      for (const s of steps) await s.sender.settled();
      const expected = steps.reduce((n, s) => n + s.sender.expected(), 0);
      const allArrived = await receivers.waitFor(expected, env.quick ? 60_000 : 120_000);
      const waited = now();
      for (const [i, step] of steps.entries()) {
        // Each step's orders, once arrived; a missing delivery counts at the time waited since the step's last answer (a lower bound).
        const lat = latencies(receivers, step.sender).fromResponse;
        const lastAnswer = Math.max(0, ...[...step.sender.committed.values()].map((c) => c.answered));
        for (let k = step.sender.expected() - lat.length; k > 0; k--) lat.push(waited - lastAnswer);
        lines[i] += `, response → receipt ${latencyText(lat)}`;
        if (step.flat && percentile(lat, 99) <= 1000) best = { rate: step.rate, perSec: step.perSec, cpu: step.cpu };
      }
      receivers.assertClean('webhook-sustained');
      await env.settle();
      const ours = best?.perSec ?? 0;
      return summarize(
        'per_s',
        [ours],
        [900],
        `deliveries/s at the highest step with a flat backlog and p99 ≤ 1 s (${best ? `${best.rate} orders/s × 3 endpoints; CPU there ${best.cpu}` : 'no step passed'}), HIGHER is better; goal ≥ 900/s; ${GOAL_NOTE}; ` +
          `100 stores × 3 endpoints, loopback receivers answering in 20–80 ms, steps ${STEPS.join(' → ')} orders/s of ${stepSec} s each through POST /orders, stopping at the first step whose backlog grows (one round); ` +
          `${lines.join('; ')}; ${allArrived ? 'every delivery arrived' : `${expected - receivers.count} deliveries missing at the end`}; no duplicates, signatures verified; ` +
          `Temporal: ${env.where.temporal}; ${env.where.postgres}; ours makes one attempt per delivery and never retries`,
      );
    } finally {
      await receivers.stop();
    }
  },
};

/** 10,000 orders × 3 endpoints (1,000 in quick) written while no worker runs, then a worker started and the drain timed. */
export const webhookDrainScenario: Scenario = {
  id: 'webhook-drain',
  async run(env) {
    const orders = env.quick ? 1000 : 10_000;
    const receivers = new DayReceivers();
    await receivers.start();
    let workerDown = false;
    try {
      const stores = await seedDayStores(env.pool, env.secretsKey, receivers, {
        count: 100,
        keysPerStore: 4,
        label: 'drain',
        endpoints: () => ['ok', 'ok', 'ok'],
      });
      await env.settle();
      const idle = await idleCpu(env.oursCpu, env.quick ? 3 : 5);
      await env.worker.stop();
      workerDown = true;
      // Written through POST /orders/batch (50 a request, 4 at once): the same events as single POSTs, sooner.
      const written = await writeBatches(env, stores, orders);
      const expected = written * 3;
      const started = now();
      await env.worker.start();
      workerDown = false;
      while (receivers.count === 0 && now() - started < 120_000) await sleep(20);
      const first = now();
      const { cpuMs } = await measureCpu(env.oursCpu, () => receivers.waitFor(expected, env.quick ? 180_000 : 300_000));
      const last = Math.max(...receivers.arrivals.values());
      const seconds = (last - first) / 1000;
      const perSec = receivers.count / Math.max(seconds, 0.001);
      const cpu = cpuPerDelivery(cpuMs, idle, (now() - first) / 1000, receivers.count);
      receivers.assertClean('webhook-drain');
      await env.settle();
      return summarize(
        'per_s',
        [perSec],
        [2500],
        `deliveries/s draining a backlog, HIGHER is better; goal ≥ 2,500/s at ≤ 0.6 ms CPU each; ${GOAL_NOTE}; ` +
          `${written} orders (of ${orders}) × 3 endpoints over 100 stores written through POST /orders/batch while no worker ran, then a worker started; ` +
          `${receivers.count}/${expected} deliveries; worker start → first receipt ${fmt((first - started) / 1000)} s, first → last receipt ${fmt(seconds)} s (the rate's span); ` +
          `CPU of the pipeline alone (from the first receipt to the last; API, worker, this database's backends, Temporal) ${cpu.text}; ` +
          `loopback receivers answering in 20–80 ms; no duplicates, signatures verified (one round); Temporal: ${env.where.temporal}; ${env.where.postgres}`,
      );
    } finally {
      if (workerDown) await env.worker.start();
      await receivers.stop();
    }
  },
};

async function writeBatches(env: BenchEnv, stores: DayStore[], total: number): Promise<number> {
  const perStore = Math.ceil(total / stores.length);
  const jobs: { store: DayStore; n: number; from: number }[] = [];
  for (const store of stores) for (let from = 0; from < perStore; from += 50) jobs.push({ store, from, n: Math.min(50, perStore - from) });
  let turn = 0;
  const tag = Date.now().toString(36);
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const key = job.store.keys[turn++ % job.store.keys.length]!;
        const r = await fetch(`${env.api.url}/api/v1/orders/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            orders: Array.from({ length: job.n }, (_, i) => orderInput(`drain-${tag}-${job.store.id}-${job.from + i}`, 3, null)),
          }),
        });
        await r.arrayBuffer();
      }
    }),
  );
  const { rows } = await env.pool.query<{ n: number }>(`select count(*)::int as n from orders where external_id like $1`, [
    `drain-${tag}-%`,
  ]);
  return rows[0]!.n;
}

/**
 * How many never-used stores' first orders cold-start-new-store times in a full run: with 10, its p50 read
 * 39, 10.2 and 6.0 ms in three full runs of nearly the same code.
 */
const NEW_STORES = 30;

/** How many times each start is timed: the median is the figure. */
const STARTS = (env: BenchEnv) => (env.quick ? 1 : 3);

/** A new API process (spawned like start:api) from spawn to its first 2xx on GET /api/v1/me, polled every 20 ms. */
async function apiStart(env: BenchEnv): Promise<number> {
  const { freePort } = await import('../../config/free-port.js');
  const port = await freePort();
  const t0 = now();
  const api = spawnNode('api-cold', startScriptArgs('start:api'), { ...env.serviceEnv, PORT: String(port) });
  try {
    while (now() - t0 < 60_000) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer ${env.store.keys[0]}` } }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return now() - t0;
      await sleep(20);
    }
    return Number.NaN;
  } finally {
    await api.stop();
  }
}

let coldRun: Promise<{ api: number; worker: number; store: number[]; direct: number[]; notes: string }> | undefined;

/** API start → first 2xx, worker start → first delivery, the first order of never-used stores. */
function coldStarts(env: BenchEnv) {
  return (coldRun ??= (async () => {
    const receivers = new DayReceivers();
    await receivers.start();
    let workerDown = false;
    try {
      // Each start is timed STARTS times (one in quick), and the median is the figure: one start alone
      // ranged from 1.1 to 2.5 s in earlier full runs of the same code.
      const apiTimes: number[] = [];
      for (let i = 0; i < STARTS(env); i++) apiTimes.push(await apiStart(env));
      // Worker: an order waits while no worker runs; timed from the worker's spawn to the order's receipt.
      const waiting = await seedDayStores(env.pool, env.secretsKey, receivers, {
        count: STARTS(env),
        keysPerStore: 1,
        label: 'cold-w',
        endpoints: () => ['ok'],
      });
      const workerTimes: number[] = [];
      for (const store of waiting) {
        await env.settle();
        await env.worker.stop();
        workerDown = true;
        receivers.reset();
        const sender = new OrderSender(env.api.url, `cold-w-${Date.now().toString(36)}`);
        sender.post(store);
        await sender.settled();
        await sleep(1000);
        const w0 = now();
        await env.worker.start();
        workerDown = false;
        await receivers.waitFor(1, 120_000);
        workerTimes.push(receivers.count ? Math.min(...receivers.arrivals.values()) - w0 : Number.NaN);
        receivers.assertClean('cold-start-worker');
      }
      const apiMs = median(apiTimes);
      const workerMs = median(workerTimes);
      await env.settle();
      // Never-used stores, one at a time, 2 s apart: the first order of each (the lane's 15-minute idle end is
      // a constant of the workflow, not configurable, so a store idle that long is stood in for by a new one).
      const fresh = await seedDayStores(env.pool, env.secretsKey, receivers, {
        count: env.quick ? 5 : NEW_STORES,
        keysPerStore: 1,
        label: 'cold-s',
        endpoints: () => ['ok'],
      });
      receivers.reset();
      const firsts = new OrderSender(env.api.url, `cold-s-${Date.now().toString(36)}`);
      for (const s of fresh) {
        firsts.post(s);
        await firsts.settled();
        await receivers.waitFor(firsts.expected(), 30_000);
        await sleep(2000);
      }
      const store = latencies(receivers, firsts).fromResponse;
      receivers.assertClean('cold-start');
      await env.settle();
      return {
        api: apiMs,
        worker: workerMs,
        store,
        direct: [],
        notes:
          `API start (spawn of start:api) → first 2xx of GET /api/v1/me ${fmt(apiMs)} ms (median of ${apiTimes.map(fmt).join(' / ')}); ` +
          `worker start (spawn of start:worker, an order waiting) → its delivery's receipt ${fmt(workerMs)} ms (median of ${workerTimes.map(fmt).join(' / ')}); ` +
          `first order of a never-used store, response → receipt ${latencyText(store)} (the lane's 15-minute idle end is fixed in the workflow, so a store idle longer than it is stood in for by new stores); one round; ` +
          `Temporal: ${env.where.temporal}; ${env.where.postgres}`,
      };
    } finally {
      if (workerDown) await env.worker.start();
      await receivers.stop();
    }
  })());
}

export const coldStartScenario: Scenario = {
  id: 'cold-start',
  run: async (env) => {
    const r = await coldStarts(env);
    return summarize(
      'ms',
      [r.api],
      [2000],
      `ms from the API's start to its first 2xx, LOWER is better; goal ≤ 2,000 ms; ${GOAL_NOTE}; ${r.notes}`,
    );
  },
};
export const coldStartWorkerScenario: Scenario = {
  id: 'cold-start-worker',
  run: async (env) => {
    const r = await coldStarts(env);
    return summarize(
      'ms',
      [r.worker],
      [1000],
      `ms from the worker's start to the first delivery, LOWER is better; goal ≤ 1,000 ms; ${GOAL_NOTE}; ${r.notes}`,
    );
  },
};
export const coldStartNewStoreScenario: Scenario = {
  id: 'cold-start-new-store',
  run: async (env) => {
    const r = await coldStarts(env);
    return summarize(
      'ms',
      [percentile(r.store, 50)],
      [15],
      `p50 ms of the first order of a never-used store, response → receipt, LOWER is better; baseline = the tail's p50 goal (15 ms, not a measurement); ${r.notes}`,
    );
  },
};
