import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { alternate } from './compare.js';
import { measureCpu } from './cpu.js';
import type { BenchEnv } from './environment.js';
import { createBenchStore, keyRotation } from './fixtures.js';
import { orderInput } from './order-bodies.js';
import { rssMb } from './processes.js';
import type { ScenarioResult } from './stats.js';
import { fmt, median, summarize } from './stats.js';
import { cpuPerDelivery, idleCpu, standardSignature, verifiedDelivery } from './many-stores.js';

/** Orders per measurement (issue 9: 1,000 orders at ~20 orders/s); quick runs send 400 unless BENCH_E2E_ORDERS says otherwise. */
let ORDERS = 1000;
const RATE = 20;
const ENDPOINTS = 3;
/** Parallel requests when sending as fast as possible. */
const BURST_CONCURRENCY = 20;
const WAIT_MS = 240_000;

const now = () => performance.now();

/** Orders per side in the end-to-end scenarios (webhooks, pushes): 1,000, or 400 in quick runs; BENCH_E2E_ORDERS overrides (rounded to 50). */
export function e2eOrders(env: Pick<BenchEnv, 'quick'>): number {
  const asked = Number(process.env.BENCH_E2E_ORDERS ?? 0);
  return asked > 0 ? Math.max(50, Math.round(asked / 50) * 50) : env.quick ? 400 : 1000;
}

/**
 * Three loopback receivers in the harness: each delivery's arrival time, keyed by data.order.id (or the direct
 * POST's id). Each (order, receiver) pair counts once; a second arrival of a pair, or a delivery whose
 * X-Service-Signature or Standard Webhooks signature does not verify, fails the run (assertClean).
 */
class Receivers {
  readonly servers: Server[] = [];
  readonly urls: string[] = [];
  /** Each endpoint's secret, by receiver index (set once the endpoints exist). */
  secrets: string[] = [];
  /** id → arrival times (one per receiver). */
  arrivals = new Map<string, number[]>();
  private seen = new Set<string>();
  count = 0;
  statusNon2xx = 0;
  /** Over the whole run (never reset): pairs that arrived twice, deliveries whose signatures did not verify. */
  duplicates = 0;
  badSignatures = 0;

  async start() {
    for (let i = 0; i < ENDPOINTS; i++) {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const t = now();
          const raw = Buffer.concat(chunks);
          const secret = this.secrets[i];
          if (secret && !verifiedDelivery(secret, req.headers, raw)) this.badSignatures++;
          try {
            const body = JSON.parse(raw.toString('utf8')) as { data?: { order?: { id?: string } } };
            const id = body.data?.order?.id;
            if (id && this.seen.has(`${id} ${i}`)) this.duplicates++;
            else if (id) {
              this.seen.add(`${id} ${i}`);
              const list = this.arrivals.get(id) ?? [];
              list.push(t);
              this.arrivals.set(id, list);
              this.count++;
            }
          } catch {
            // not JSON: ignored
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        });
      });
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
      this.servers.push(server);
      this.urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook/${i}`);
    }
  }

  reset() {
    this.arrivals = new Map();
    this.seen = new Set();
    this.count = 0;
  }

  assertClean() {
    if (this.duplicates || this.badSignatures)
      throw new Error(
        `webhooks: ${this.duplicates} duplicate deliveries and ${this.badSignatures} with a bad signature reached the receivers`,
      );
  }

  async waitFor(total: number, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    while (this.count < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return this.count >= total;
  }

  stop() {
    return Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((done) => {
            s.closeAllConnections();
            s.close(() => done());
          }),
      ),
    );
  }
}

function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Sends `count` requests: at `rate` per second (open loop), or as fast as `concurrency` parallel requests allow when rate is 0. */
async function send(count: number, rate: number, concurrency: number, one: (i: number) => Promise<void>) {
  if (rate > 0) {
    const started = now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(one(i));
    }
    await Promise.all(inflight);
    return;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

interface Side {
  /** commit (or send) → receipt, ms, one per delivery. */
  latencies: number[];
  failed: number;
  arrived: number;
  expected: number;
  /** Throughput phase: deliveries/s from the first send to the last receipt, and the drain after the last commit. */
  perSec: number;
  drainSec: number;
  burstArrived: number;
  sendSec: number;
  /** CPU per delivery by process group during the steady phase and the burst, idle subtracted (ours only). */
  cpu?: string;
  burstCpu?: string;
}

export interface WebhookResults {
  p50: ScenarioResult;
  p99: ScenarioResult;
  throughput: ScenarioResult;
}

let cached: Promise<WebhookResults> | undefined;

/** One run measures the three webhook scenarios together (they share the store, receivers and orders). */
export function webhookResults(env: BenchEnv): Promise<WebhookResults> {
  return (cached ??= measureWebhooks(env));
}

async function measureWebhooks(env: BenchEnv): Promise<WebhookResults> {
  ORDERS = e2eOrders(env);
  const receivers = new Receivers();
  await receivers.start();
  try {
    const store = await createBenchStore(env.pool, 'Bench Webhook Store', 200);
    await env.pool.query(`update api_keys set scopes = array_append(scopes, 'webhooks:write') where store_id = $1`, [store.id]);
    const secrets: string[] = [];
    for (const url of receivers.urls) {
      const r = await fetch(`${env.api.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.keys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['order.created'] }),
      });
      const body = (await r.json()) as { secret?: string };
      if (r.status !== 201 || !body.secret) throw new Error(`POST /webhooks: HTTP ${r.status} ${JSON.stringify(body)}`);
      secrets.push(body.secret);
    }
    receivers.secrets = secrets;
    // Each process's idle CPU, measured first and reported apart; every CPU figure below has it subtracted.
    const idle = await idleCpu(env.oursCpu, env.quick ? 3 : 5);
    const nextKey = keyRotation(store.keys);
    const rss = { api: [] as number[], worker: [] as number[] };
    const workerPid = env.oursCpu.worker?.()[0];
    const sampleRss = () => {
      rss.api.push(rssMb(env.api.process.pid));
      if (workerPid) rss.worker.push(rssMb(workerPid));
    };

    /** Ours: POST /orders, commit time = response; receipts matched by data.order.id. */
    const ours = async (
      tag: string,
      rate: number,
    ): Promise<{
      latencies: number[];
      failed: number;
      lastCommit: number;
      firstSend: number;
      arrived: number;
      expected: number;
      lastArrival: number;
    }> => {
      receivers.reset();
      const commits = new Map<string, number>();
      let failed = 0;
      const firstSend = now();
      let lastCommit = firstSend;
      const timer = setInterval(sampleRss, 1000);
      await send(ORDERS, rate, BURST_CONCURRENCY, async (i) => {
        try {
          const r = await fetch(`${env.api.url}/api/v1/orders`, {
            method: 'POST',
            headers: { authorization: `Bearer ${nextKey()}`, 'content-type': 'application/json' },
            body: JSON.stringify(orderInput(`wh-${tag}-${i}`, 3, null)),
          });
          const t = now();
          const body = (await r.json()) as { order?: { id?: string } };
          if (r.status !== 201 || !body.order?.id) failed++;
          else {
            commits.set(body.order.id, t);
            lastCommit = Math.max(lastCommit, t);
          }
        } catch {
          failed++;
        }
      });
      const expected = commits.size * ENDPOINTS;
      await receivers.waitFor(expected, WAIT_MS);
      clearInterval(timer);
      sampleRss();
      const latencies: number[] = [];
      let lastArrival = firstSend;
      for (const [id, times] of receivers.arrivals) {
        const c = commits.get(id);
        if (c === undefined) continue;
        for (const t of times) {
          latencies.push(t - c);
          lastArrival = Math.max(lastArrival, t);
        }
      }
      return { latencies, failed, lastCommit, firstSend, arrived: latencies.length, expected, lastArrival };
    };

    /** Baseline: the harness POSTs the same kind of signed body straight to the same receivers (one per endpoint). */
    const direct = async (tag: string, rate: number) => {
      receivers.reset();
      const sent = new Map<string, number>();
      let failed = 0;
      const firstSend = now();
      await send(ORDERS, rate, BURST_CONCURRENCY, async (i) => {
        const id = `direct-${tag}-${i}`;
        const payload = JSON.stringify({
          id: `evt-${id}`,
          type: 'order.created',
          created_at: new Date().toISOString(),
          data: { order: { id, ...orderInput(id, 3, null) } },
        });
        const t0 = now();
        sent.set(id, t0);
        await Promise.all(
          receivers.urls.map(async (url, k) => {
            const r = await fetch(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-service-signature': `sha256=${createHmac('sha256', secrets[k]!).update(payload).digest('hex')}`,
                'webhook-id': `evt-${id}`,
                'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
                'webhook-signature': standardSignature(secrets[k]!, `evt-${id}`, Math.floor(Date.now() / 1000), payload),
              },
              body: payload,
            }).catch(() => null);
            if (!r || r.status !== 200) failed++;
            await r?.arrayBuffer();
          }),
        );
      });
      await receivers.waitFor(ORDERS * ENDPOINTS, 10_000);
      const latencies: number[] = [];
      let lastArrival = firstSend;
      for (const [id, times] of receivers.arrivals) {
        const c = sent.get(id);
        if (c === undefined) continue;
        for (const t of times) {
          latencies.push(t - c);
          lastArrival = Math.max(lastArrival, t);
        }
      }
      return {
        latencies,
        failed,
        lastCommit: lastArrival,
        firstSend,
        arrived: latencies.length,
        expected: ORDERS * ENDPOINTS,
        lastArrival,
      };
    };

    const side = async (run: typeof ours, label: string, round: number): Promise<Side> => {
      const t0 = now();
      const { result: steady, cpuMs } = await measureCpu(label === 'ours' ? env.oursCpu : {}, () => run(`${label}-${round}-rate`, RATE));
      const cpu = label === 'ours' ? cpuPerDelivery(cpuMs, idle, (now() - t0) / 1000, steady.arrived).text : undefined;
      env.log(
        `webhooks round ${round}: ${label} at ${RATE}/s: ${steady.arrived}/${steady.expected} deliveries, p50 ${fmt(percentile(steady.latencies, 50))} ms, p99 ${fmt(percentile(steady.latencies, 99))} ms`,
      );
      if (label === 'ours') await env.settle();
      const b0 = now();
      const { result: burst, cpuMs: burstCpuMs } = await measureCpu(label === 'ours' ? env.oursCpu : {}, () =>
        run(`${label}-${round}-burst`, 0),
      );
      const burstCpu = label === 'ours' ? cpuPerDelivery(burstCpuMs, idle, (now() - b0) / 1000, burst.arrived).text : undefined;
      const spanSec = (burst.lastArrival - burst.firstSend) / 1000;
      const result: Side = {
        latencies: steady.latencies,
        failed: steady.failed + burst.failed,
        arrived: steady.arrived,
        expected: steady.expected,
        perSec: burst.arrived / Math.max(spanSec, 0.001),
        drainSec: Math.max(0, (burst.lastArrival - burst.lastCommit) / 1000),
        burstArrived: burst.arrived,
        sendSec: (burst.lastCommit - burst.firstSend) / 1000,
        ...(cpu ? { cpu } : {}),
        ...(burstCpu ? { burstCpu } : {}),
      };
      env.log(
        `webhooks round ${round}: ${label} as fast as possible: ${burst.arrived}/${burst.expected} deliveries at ${fmt(result.perSec)}/s, ` +
          `orders sent in ${fmt(result.sendSec)} s, backlog drained ${fmt(result.drainSec)} s after the last commit`,
      );
      return result;
    };

    const runs = await alternate<Side>({
      id: 'webhooks',
      rounds: env.rounds,
      unit: 'ms p99',
      ours: (round) => side(ours, 'ours', round),
      baseline: (round) => side(direct, 'direct', round),
      settle: env.settle,
      detail: (o) => `ours failed ${o.failed}, arrived ${o.arrived}/${o.expected}`,
      value: (s) => percentile(s.latencies, 99),
      log: env.log,
    });
    receivers.assertClean();
    const history = await historyEventsPerDelivery(env, store.id);
    const p = (s: Side, q: number) => percentile(s.latencies, q);
    const failed = runs.ours.reduce((n, r) => n + r.failed, 0);
    const missing = runs.ours.reduce((n, r) => n + (r.expected - r.arrived), 0);
    const common =
      `${ORDERS} orders (3 items) per measurement through POST /orders into a store with ${ENDPOINTS} webhook endpoints (order.created) on loopback receivers in the harness; ` +
      `the figures are response → receipt (the POST's response, which follows the commit, to the receiver's request end; matched by data.order.id; the receivers count each (order, endpoint) once and verify both signatures, a duplicate or a bad signature fails the run); baseline: the harness POSTs the same signed body straight to the same receivers ` +
      `(one POST per endpoint); ours p50 ${runs.ours.map((s) => fmt(p(s, 50))).join(', ')} ms, p99 ${runs.ours.map((s) => fmt(p(s, 99))).join(', ')} ms, max ${runs.ours.map((s) => fmt(p(s, 100))).join(', ')} ms; ` +
      `direct p50 ${runs.baseline.map((s) => fmt(p(s, 50))).join(', ')} ms, p99 ${runs.baseline.map((s) => fmt(p(s, 99))).join(', ')} ms; ` +
      `overhead over a direct POST p50 ${fmt(median(runs.ours.map((s, i) => p(s, 50) - p(runs.baseline[i]!, 50))))} ms, p99 ${fmt(median(runs.ours.map((s, i) => p(s, 99) - p(runs.baseline[i]!, 99))))} ms; ` +
      `CPU per delivery at ${RATE} orders/s (ours, from the first order to the last receipt, order creation included) ${runs.ours.map((s) => s.cpu).join('; ')}; ` +
      `CPU per delivery in the burst ${runs.ours.map((s) => s.burstCpu).join('; ')}; ` +
      `ours failed orders ${failed}, deliveries missing after ${WAIT_MS / 1000} s ${missing}; ` +
      `Temporal history events ${history}; ` +
      `peak RSS API ${fmt(Math.max(...rss.api))} MB, worker ${fmt(rss.worker.length ? Math.max(...rss.worker) : Number.NaN)} MB`;
    const p50 = summarize(
      'p50_ms',
      runs.ours.map((s) => p(s, 50)),
      runs.baseline.map((s) => p(s, 50)),
      `p50 ms (response → receipt) at ${RATE} orders/s into one busy store, LOWER is better; aim ours ≤ 100 ms; ${common}`,
    );
    const p99 = summarize(
      'p99_ms',
      runs.ours.map((s) => p(s, 99)),
      runs.baseline.map((s) => p(s, 99)),
      `p99 ms (response → receipt) at ${RATE} orders/s into one busy store, LOWER is better; aim ours ≤ 500 ms; ${common}`,
    );
    const throughput = summarize(
      'per_s',
      runs.ours.map((s) => s.perSec),
      runs.baseline.map((s) => s.perSec),
      `BURST deliveries per second, not the pipeline's capacity (webhook-sustained and webhook-drain are the throughput figures): ${ORDERS} orders created inside the window as fast as ${BURST_CONCURRENCY} parallel POSTs allow into one store, ${ORDERS * ENDPOINTS} deliveries expected, rate = deliveries ÷ (last receipt − first send), so it is bounded by about ${ENDPOINTS} × the order-ingest rate; ` +
        `aim ours ≥ 50/s; ratio against the rate of direct signed POSTs from this one harness process (${BURST_CONCURRENCY} orders in parallel, ${ENDPOINTS} POSTs each) — a ceiling, not a like-for-like baseline; ` +
        `ours arrived ${runs.ours.map((s) => `${s.burstArrived}/${ORDERS * ENDPOINTS}`).join(', ')}, orders sent in ${runs.ours.map((s) => fmt(s.sendSec)).join(', ')} s, ` +
        `backlog drained ${runs.ours.map((s) => fmt(s.drainSec)).join(', ')} s after the last commit; ${common}`,
    );
    return { p50, p99, throughput };
  } finally {
    await receivers.stop();
  }
}

/**
 * Counts noise cannot move: the history events and workflow runs of the store (every run, continued-as-new
 * ones included; a running one is described for its current length), per delivery made.
 */
async function historyEventsPerDelivery(env: BenchEnv, storeId: string): Promise<string> {
  let events = 0;
  let runs = 0;
  for await (const run of env.temporal.workflow.list({ query: `StoreId = "${storeId}"` })) {
    events +=
      run.status.name === 'RUNNING'
        ? (await env.temporal.workflow.getHandle(run.workflowId, run.runId).describe()).historyLength
        : run.historyLength;
    runs++;
  }
  const { rows } = await env.pool.query<{ deliveries: string; orders: string }>(
    `select count(*) as deliveries, count(distinct order_id) as orders from webhook_deliveries where store_id = $1 and status = 'delivered'`,
    [storeId],
  );
  const delivered = Number(rows[0]!.deliveries);
  const orders = Number(rows[0]!.orders);
  return (
    `${fmt(events / Math.max(1, delivered))} per delivery, workflow runs ${fmt(runs / Math.max(1, delivered))} per delivery and ${fmt(runs / Math.max(1, orders))} per order ` +
    `(${events} events in ${runs} workflow runs for ${delivered} deliveries of ${orders} orders)`
  );
}
