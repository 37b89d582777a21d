// One phase of the many-store webhook day (issue 22), shared by the tail, bad-neighbour, TLS and
// Temporal-on-PostgreSQL scenarios: stores seeded in bulk, orders as a Poisson process through the HTTP
// API, deliveries counted at loopback receivers, CPU with idle subtracted, Temporal history events.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Client } from '@temporalio/client';
import { measureCpu, type CpuGroups } from './cpu.js';
import type { BenchEnv } from './environment.js';
import {
  ActivitySampler,
  cpuPerDelivery,
  DayReceivers,
  historyEventsSince,
  idleCpu,
  latencies,
  latencyText,
  now,
  openHistories,
  OrderSender,
  poissonLoad,
  seedDayStores,
  slowestText,
  type DayStore,
  type EndpointMode,
} from './many-stores.js';
import { seededRandom } from './order-bodies.js';
import { fmt } from './stats.js';

export interface DayOptions {
  label: string;
  healthyStores: number;
  /** Stores whose one endpoint accepts and never answers. */
  badStores: number;
  /** Orders/s over the healthy stores, and over the bad ones. */
  rate: number;
  badRate: number;
  seconds: number;
  tls?: boolean;
  /** Temporal and the CPU groups to account (default: the bench's dev server and processes). */
  temporal?: Client;
  groups?: CpuGroups;
  /** Where Temporal ran, for the notes. */
  where?: string;
}

export interface DayResult {
  /** Healthy stores' deliveries, response → receipt (ms); missing ones counted at the time waited (a lower bound). */
  latencies: number[];
  /** Direct signed POSTs to the same receivers (send → receipt, a new connection each, as a small store's sender makes). */
  direct: number[];
  eventsPerOrder: number;
  cpuPerDelivery: number;
  notes: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs one day phase and returns its figures; every process and receiver it started is stopped. */
export async function runDay(env: BenchEnv, opts: DayOptions): Promise<DayResult> {
  const temporal = opts.temporal ?? env.temporal;
  const groups = opts.groups ?? env.oursCpu;
  const receivers = new DayReceivers(opts.tls ? env.tls : undefined);
  await receivers.start();
  try {
    const random = seededRandom(100 + opts.healthyStores);
    const healthy = await seedDayStores(env.pool, env.secretsKey, receivers, {
      count: opts.healthyStores,
      keysPerStore: 1,
      label: `${opts.label}-h`,
      endpoints: () => Array.from({ length: 1 + Math.floor(random() * 3) }, (): EndpointMode => 'ok'),
    });
    const bad = opts.badStores
      ? await seedDayStores(env.pool, env.secretsKey, receivers, {
          count: opts.badStores,
          keysPerStore: 2,
          label: `${opts.label}-b`,
          endpoints: () => ['hang'],
        })
      : [];
    const endpoints = healthy.reduce((n, s) => n + s.endpoints.length, 0);
    const warm = await warmUp(env, receivers, healthy, opts);
    await env.settle();
    // The sampler (a scrape of the worker's metrics page, whose outbox gauges query PostgreSQL, and a count of
    // Temporal's open workflows, each second) runs through the idle measurement too: its own CPU is then
    // subtracted with the idle, not billed to the deliveries it watches.
    const sampler = new ActivitySampler(env.worker.metricsUrl, temporal);
    sampler.start();
    const idleSec = env.quick ? 3 : 10;
    const idle = await idleCpu(groups, idleSec);
    const since = new Date(Date.now() - 1000).toISOString();
    const before = await openHistories(temporal);
    const sender = new OrderSender(env.api.url, `day-${opts.label}-${Date.now().toString(36)}`);
    const isHealthy = new Set(healthy.map((s) => s.id));
    const healthyOnly = (s: DayStore) => isHealthy.has(s.id);
    const waitMs = env.quick ? 60_000 : 120_000;
    const t0 = now();
    let offered = 0;
    let allArrived = false;
    const { cpuMs } = await measureCpu(groups, async () => {
      const counts = await Promise.all([
        poissonLoad(sender, healthy, opts.rate, opts.seconds, 1),
        bad.length ? poissonLoad(sender, bad, opts.badRate, opts.seconds, 2) : Promise.resolve(0),
      ]);
      offered = counts[0] + counts[1];
      await sender.settled();
      allArrived = await receivers.waitFor(sender.expected(healthyOnly), waitMs);
    });
    const phaseSec = (now() - t0) / 1000;
    await sampler.stop();
    const arrived = latencies(receivers, sender, healthyOnly);
    const expected = sender.expected(healthyOnly);
    const missing = expected - arrived.fromResponse.length;
    const waited = now();
    // A delivery that never came counts at the time waited since its order's answer: a lower bound of its latency.
    const withMissing = [...arrived.fromResponse];
    if (missing > 0)
      for (const [id, c] of sender.committed)
        if (healthyOnly(c.store))
          for (const e of c.store.endpoints)
            if (e.mode === 'ok' && !receivers.arrivals.has(`${id} ${e.id}`)) withMissing.push(waited - c.answered);
    const cpu = cpuPerDelivery(cpuMs, idle, phaseSec, arrived.fromResponse.length);
    const direct = await directPosts(receivers, healthy, env.quick ? 100 : 300, opts.tls ? env.tls.ca : undefined);
    // The pipeline's leftovers (hanging endpoints' timeouts, workflows closing) finish before the history is counted.
    await env.settle();
    // Temporal failing to list (an overloaded dev server's SQLite answers "interrupted") spoils the count, not the latencies.
    const history = await historyEventsSince(temporal, since, before).catch((err: Error) => ({
      events: Number.NaN,
      runs: 0,
      error: err.message,
    }));
    receivers.assertClean(opts.label);
    const orders = sender.committed.size;
    const notes =
      `${opts.healthyStores} stores with 1–3 endpoints each (${endpoints} in all)` +
      (bad.length
        ? ` and ${bad.length} stores whose one endpoint accepts the connection and never answers (${fmt(opts.badRate)} orders/s over them, ${receivers.hangs} hanging requests received)`
        : '') +
      `, loopback ${opts.tls ? 'HTTPS (a test CA made for the run, NODE_EXTRA_CA_CERTS on the worker, https://localhost)' : 'HTTP'} receivers answering in 20–80 ms; ` +
      `${warm}; orders as a Poisson process, ${fmt(opts.rate)} orders/s over the healthy stores for ${opts.seconds} s through POST /orders (one round); ` +
      `${offered} offered, ${orders} committed, ${sender.failed} failed${sender.firstError ? ` (first: ${sender.firstError})` : ''}; ` +
      `healthy deliveries ${arrived.fromResponse.length}/${expected}${allArrived ? '' : `, ${missing} missing after ${waitMs / 1000} s (counted at the time waited)`}; ` +
      `response → receipt (the commit is before the response; no commit timestamps on this server) ${latencyText(withMissing)}; ` +
      `send → receipt (an upper bound of commit → receipt) ${latencyText(arrived.fromSend)}; ` +
      `${slowestText(arrived.fromResponse, arrived.answeredAt, t0)}; ` +
      `direct signed POST to the same receivers over a new connection each, send → receipt ${latencyText(direct)}; ` +
      `CPU (API, worker, this database's backends, Temporal; from the first order to the last receipt, ${fmt(phaseSec)} s) ${cpu.text}; ` +
      ('error' in history
        ? `Temporal history events could not be counted (${history.error}); `
        : `Temporal history events ${fmt(history.events / Math.max(1, orders))} per order (${history.events} events in ${history.runs} workflow runs that were open or ran during the phase, ${orders} orders); `) +
      `${sampler.text()}; duplicates 0 and every signature verified (X-Service-Signature and Standard Webhooks), else the run fails; ` +
      `Temporal: ${opts.where ?? env.where.temporal}; ${env.where.postgres}; ours makes one attempt per delivery and never retries`;
    return {
      latencies: withMissing,
      direct,
      eventsPerOrder: history.events / Math.max(1, orders),
      cpuPerDelivery: cpu.total,
      notes,
    };
  } finally {
    await receivers.stop();
  }
}

/**
 * Seconds of the phase's own load before it is measured (BENCH_DAY_WARMUP_SECONDS, 0 for none): the shards'
 * dispatchers are then running, as they are all day in production, where a shard's dispatcher ends only
 * after an hour without orders. Without it, a phase on a Temporal server started for it (the
 * Temporal-on-PostgreSQL runs) measures every shard's first start in its tail; the cold path is what the
 * cold-start scenarios measure.
 */
function warmUpSeconds(env: BenchEnv): number {
  const asked = process.env.BENCH_DAY_WARMUP_SECONDS;
  return asked === undefined ? (env.quick ? 2 : 5) : Number(asked);
}

/** Runs the warm-up load, waits for its deliveries and forgets them; returns what it did, for the notes. */
async function warmUp(env: BenchEnv, receivers: DayReceivers, healthy: DayStore[], opts: DayOptions): Promise<string> {
  const seconds = warmUpSeconds(env);
  if (!(seconds > 0)) return 'no warm-up (BENCH_DAY_WARMUP_SECONDS=0): the dispatchers start cold in the measured phase';
  const sender = new OrderSender(env.api.url, `warm-${opts.label}-${Date.now().toString(36)}`);
  await poissonLoad(sender, healthy, opts.rate, seconds, 3);
  await sender.settled();
  const expected = sender.expected();
  const arrived = await receivers.waitFor(expected, env.quick ? 60_000 : 120_000);
  receivers.assertClean(`${opts.label} warm-up`);
  receivers.reset();
  return (
    `a warm-up of ${seconds} s of the same load over the healthy stores before the phase (${sender.committed.size} orders, ` +
    `${expected} deliveries${arrived ? '' : ', some still missing'}; not measured), so the shards' dispatchers run as they do all day`
  );
}

/**
 * The baseline: the harness POSTs a signed order.created body straight to receivers of the phase (`count`
 * of them, 20/s), each over a new connection (agent false: a small store's sender has none open), send → receipt.
 */
async function directPosts(receivers: DayReceivers, stores: DayStore[], count: number, ca: string | undefined): Promise<number[]> {
  const sent = new Map<string, number>();
  const started = now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + i * 50;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    const store = stores[i % stores.length]!;
    const endpoint = store.endpoints[0]!;
    const orderId = `direct-${i}-${Date.now().toString(36)}`;
    const body = JSON.stringify({
      id: `evt-${orderId}`,
      type: 'order.created',
      created_at: new Date().toISOString(),
      data: { order: { id: orderId } },
    });
    const ts = Math.floor(Date.now() / 1000);
    const key = Buffer.from(endpoint.secret.replace(/^whsec_/, ''), 'base64');
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'x-service-signature': `sha256=${createHmac('sha256', endpoint.secret).update(body).digest('hex')}`,
      'webhook-id': `evt-${orderId}`,
      'webhook-timestamp': String(ts),
      'webhook-signature': `v1,${createHmac('sha256', key).update(`evt-${orderId}.${ts}.`).update(body).digest('base64')}`,
    };
    const url = new URL(receivers.url(endpoint));
    sent.set(`${orderId} ${endpoint.id}`, now());
    inflight.push(
      new Promise<void>((done) => {
        const options = { method: 'POST', headers, agent: false as const, lookup: pinnedLoopback };
        const req = ca ? https.request(url, { ...options, ca }) : http.request(url, options);
        req.on('response', (res) => (res.resume(), res.on('end', () => done())));
        req.on('error', () => done());
        req.end(body);
      }),
    );
  }
  await Promise.all(inflight);
  const out: number[] = [];
  for (const [key, t] of sent) {
    const arrived = receivers.arrivals.get(key);
    if (arrived !== undefined) out.push(arrived - t);
  }
  return out;
}

/** localhost → 127.0.0.1, as the service's sender pins it (no resolver on the path). */
const pinnedLoopback = ((_host: string, options: { all?: boolean }, callback: (...a: unknown[]) => void) =>
  options.all
    ? callback(null, [{ address: '127.0.0.1', family: 4 }])
    : callback(null, '127.0.0.1', 4)) as unknown as http.RequestOptions['lookup'];
