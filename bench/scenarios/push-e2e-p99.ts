import { randomUUID, createHmac } from 'node:crypto';
import { ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop, type Update } from '../../examples/plugin/shop.js';
import { openOrm } from '../../db/orm.js';
import { approveConnection } from '../../services/connections/codes.js';
import { alternate } from '../lib/compare.js';
import { measureCpu } from '../lib/cpu.js';
import { cpuPerDelivery, idleCpu } from '../lib/many-stores.js';
import { createBenchStore, keyRotation } from '../lib/fixtures.js';
import { orderInput } from '../lib/order-bodies.js';
import { rssMb } from '../lib/processes.js';
import { e2eOrders } from '../lib/webhook-run.js';
import type { Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

let ORDERS = 1000;
/** PATCHes per second (fixed rate). */
const RATE = 20;
const WAIT_MS = 180_000;
const now = () => performance.now();

function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Side {
  latencies: number[];
  failed: number;
  expected: number;
  /** Updates received per second, first PATCH (or POST) to last receipt. */
  perSec: number;
  /** CPU per update by process group (ours only). */
  cpu?: string;
}

/**
 * Update push, order change → plugin receipt: a shop connected through a real code exchange, the reference plugin
 * (examples/plugin) listening on loopback as push receiver; 1,000 connected orders, each PATCHed to shipped with
 * the store's secret key at a fixed rate; p99 from the PATCH's response to the plugin applying the update.
 * Baseline: the harness POSTs the same signed push straight to the plugin's receiver.
 */
export const pushE2eP99Scenario: Scenario = {
  id: 'push-e2e-p99',
  async run(env) {
    ORDERS = e2eOrders(env);
    const store = await createBenchStore(env.pool, 'Bench Push Store', 200);
    const orm = await openOrm({ databaseUrl: env.databaseUrl, poolMax: 2 });
    const shop = new InMemoryShop();
    const siteUrl = `https://bench-shop-${process.pid}.example`;
    const plugin = new ReferencePlugin({ serviceUrl: env.api.url, platform: 'platform_a', siteUrl, shop });
    try {
      // A short-lived code, so its timer workflow ends and the run can settle.
      const { code } = await approveConnection(orm.em.fork(), { storeId: store.id, platform: 'platform_a', siteUrl, ttlSeconds: 20 });
      const exchanged = await plugin.client.exchange(code, siteUrl);
      if (exchanged.status !== 200) throw new Error(`exchange: HTTP ${exchanged.status} ${JSON.stringify(exchanged.body)}`);
      plugin.useCredentials(exchanged.body.api_key, exchanged.body.webhook_secret);
      const secret = exchanged.body.webhook_secret;
      const pushUrl = await plugin.listen();
      const beat = await plugin.heartbeat(pushUrl);
      if (beat.status !== 200) throw new Error(`heartbeat: HTTP ${beat.status} ${JSON.stringify(beat.body)}`);

      // Receipt time per order id: when the shop applies the update.
      let receipts = new Map<string, number>();
      // An update applied twice for one order is a duplicate push: it fails the run.
      let duplicates = 0;
      const apply = shop.apply.bind(shop);
      shop.apply = (update: Update) => {
        apply(update);
        if (receipts.has(update.order_id)) duplicates++;
        else receipts.set(update.order_id, now());
      };
      // Each process's idle CPU, measured first and reported apart; the CPU per update has it subtracted.
      const idle = await idleCpu(env.oursCpu, env.quick ? 3 : 5);

      const nextKey = keyRotation(store.keys);
      const workerPid = env.oursCpu.worker?.()[0];
      const rss = { api: [] as number[], worker: [] as number[] };
      const sample = () => {
        rss.api.push(rssMb(env.api.process.pid));
        if (workerPid) rss.worker.push(rssMb(workerPid));
      };

      /** 1,000 connected orders through the connection key, 50 a batch (one key: 300/min would not allow 1,000 single POSTs). */
      const connectedOrders = async (tag: string): Promise<string[]> => {
        const ids: string[] = [];
        for (let b = 0; b < ORDERS / 50; b++) {
          const orders = Array.from({ length: 50 }, (_, i) => {
            const externalId = `push-${tag}-${b * 50 + i}`;
            shop.addOrder({
              externalId,
              number: `#${externalId}`,
              status: 'processing',
              tracking: { number: null, courier: null, url: null },
              trackingPageUrl: null,
              notes: [],
            });
            return { ...orderInput(externalId, 3, null), status: 'processing' };
          });
          const r = await fetch(`${env.api.url}/api/v1/orders/batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${exchanged.body.api_key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ orders }),
          });
          const body = (await r.json()) as { results?: { ok: boolean; id?: string; error?: string }[] };
          if (r.status !== 200 || !body.results) throw new Error(`orders/batch: HTTP ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
          for (const res of body.results)
            if (res.ok && res.id) ids.push(res.id);
            else throw new Error(`orders/batch: ${JSON.stringify(res)}`);
        }
        return ids;
      };

      const paced = async (count: number, one: (i: number) => Promise<void>) => {
        const started = now();
        const inflight: Promise<void>[] = [];
        for (let i = 0; i < count; i++) {
          const wait = started + (i * 1000) / RATE - now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          inflight.push(one(i));
        }
        await Promise.all(inflight);
      };
      const waitFor = async (ids: string[]) => {
        const deadline = Date.now() + WAIT_MS;
        while (ids.some((id) => !receipts.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      };
      const collect = (sent: Map<string, number>, firstSend: number, failed: number): Side => {
        const latencies: number[] = [];
        let last = firstSend;
        for (const [id, t0] of sent) {
          const t = receipts.get(id);
          if (t === undefined) continue;
          latencies.push(t - t0);
          last = Math.max(last, t);
        }
        return { latencies, failed, expected: sent.size, perSec: latencies.length / Math.max(0.001, (last - firstSend) / 1000) };
      };

      const ours = async (round: number): Promise<Side> => {
        const ids = await connectedOrders(`r${round}`);
        await env.settle();
        receipts = new Map();
        const sent = new Map<string, number>();
        let failed = 0;
        const timer = setInterval(sample, 1000);
        const firstSend = now();
        const cpuStart = now();
        const { cpuMs } = await measureCpu(env.oursCpu, async () => {
          await paced(ids.length, async (i) => {
            const id = ids[i]!;
            const r = await fetch(`${env.api.url}/api/v1/orders/${id}`, {
              method: 'PATCH',
              headers: { authorization: `Bearer ${nextKey()}`, 'content-type': 'application/json' },
              body: JSON.stringify({ status: 'shipped', tracking: { number: `TRK${i}`, courier: 'Bench Post' } }),
            }).catch(() => null);
            const t = now();
            if (!r || r.status !== 200) {
              failed++;
              if (failed === 1 && r) env.log(`push-e2e-p99: PATCH HTTP ${r.status} ${(await r.text()).slice(0, 300)}`);
              else await r?.arrayBuffer();
              return;
            }
            await r.arrayBuffer();
            sent.set(id, t);
          });
          await waitFor([...sent.keys()]);
        });
        clearInterval(timer);
        sample();
        const side = collect(sent, firstSend, failed);
        return { ...side, cpu: cpuPerDelivery(cpuMs, idle, (now() - cpuStart) / 1000, side.latencies.length).text };
      };

      const direct = async (round: number): Promise<Side> => {
        receipts = new Map();
        const sent = new Map<string, number>();
        let failed = 0;
        const firstSend = now();
        await paced(ORDERS, async (i) => {
          const orderId = randomUUID();
          const externalId = `direct-${round}-${i}`;
          shop.addOrder({
            externalId,
            number: `#${externalId}`,
            status: 'processing',
            tracking: { number: null, courier: null, url: null },
            trackingPageUrl: null,
            notes: [],
          });
          const update: Update = {
            id: randomUUID(),
            order_id: orderId,
            external_id: externalId,
            number: `#${externalId}`,
            status: 'shipped',
            tracking: { number: `TRK${i}`, courier: 'Bench Post', url: null },
            tracking_page_url: `${env.api.url}/t/x`,
            comment: null,
            updated_at: new Date().toISOString(),
          };
          const body = JSON.stringify({ updates: [update] });
          const ts = Math.floor(Date.now() / 1000);
          const t0 = now();
          sent.set(orderId, t0);
          const r = await fetch(pushUrl, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-service-timestamp': String(ts),
              'x-service-signature': `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`,
            },
            body,
          }).catch(() => null);
          if (!r || r.status !== 200) failed++;
          await r?.arrayBuffer();
        });
        await waitFor([...sent.keys()]);
        return collect(sent, firstSend, failed);
      };

      const runs = await alternate<Side>({
        id: 'push-e2e-p99',
        rounds: env.rounds,
        unit: 'ms p99',
        ours,
        baseline: direct,
        settle: env.settle,
        detail: (o) => `ours PATCH failed ${o.failed}, pushed ${o.latencies.length}/${o.expected}, ${fmt(o.perSec)} updates/s`,
        value: (s) => percentile(s.latencies, 99),
        log: env.log,
      });
      const p = (s: Side, q: number) => percentile(s.latencies, q);
      const failed = runs.ours.reduce((n, r) => n + r.failed, 0);
      const missing = runs.ours.reduce((n, r) => n + (r.expected - r.latencies.length), 0);
      const verifiedPushes = plugin.pushes.filter((x) => x.verified).length;
      // Counts noise cannot move: every workflow run of the connection and its history, per update pushed.
      let events = 0;
      let workflowRuns = 0;
      for await (const run of env.temporal.workflow.list({ query: `ConnectionId = "${exchanged.body.connection_id}"` })) {
        events +=
          run.status.name === 'RUNNING'
            ? (await env.temporal.workflow.getHandle(run.workflowId, run.runId).describe()).historyLength
            : run.historyLength;
        workflowRuns++;
      }
      const pushedUpdates = shop.applyCount;
      const refused = plugin.pushes.length - verifiedPushes;
      if (duplicates || refused)
        throw new Error(`push-e2e-p99: ${duplicates} updates applied twice and ${refused} pushes whose signature did not verify`);
      const notes =
        `p99 ms (response → receipt: the PATCH's response, after the commit, to the plugin applying the update; each order's update counted once, a duplicate or an unverified push fails the run), LOWER is better; aim ours ≤ 500 ms; ${ORDERS} connected orders (created through the connection key, 50 a batch) PATCHed to shipped with the store's secret key at ${RATE}/s; ` +
        `from the PATCH's response to the reference plugin (examples/plugin, loopback push receiver, signature verified) applying the update; ` +
        `ours p50 ${runs.ours.map((s) => fmt(p(s, 50))).join(', ')} ms, p99 ${runs.ours.map((s) => fmt(p(s, 99))).join(', ')} ms, max ${runs.ours.map((s) => fmt(p(s, 100))).join(', ')} ms; ` +
        `baseline (the harness POSTs the same signed push, one update, straight to the plugin) p50 ${runs.baseline.map((s) => fmt(p(s, 50))).join(', ')} ms, p99 ${runs.baseline.map((s) => fmt(p(s, 99))).join(', ')} ms; ` +
        `updates pushed per second ours ${runs.ours.map((s) => fmt(s.perSec)).join(', ')} (at ${RATE} changes/s offered); pushes received ${plugin.pushes.length} (refused ${refused}), ` +
        `updates applied ${shop.applyCount}; PATCH failures ${failed}, updates missing after ${WAIT_MS / 1000} s ${missing}; ` +
        `CPU per update (ours: the PATCH, the push and its acknowledgement, until applied) ${runs.ours.map((s) => s.cpu).join('; ')}; ` +
        `Temporal history events ${fmt(events / Math.max(1, pushedUpdates))} and workflow runs ${fmt(workflowRuns / Math.max(1, pushedUpdates))} per update applied (${events} events in ${workflowRuns} runs); ` +
        `overhead over a direct POST p99 ${fmt(median(runs.ours.map((s, i) => p(s, 99) - p(runs.baseline[i]!, 99))))} ms; ` +
        `peak RSS API ${fmt(Math.max(...rss.api))} MB, worker ${fmt(rss.worker.length ? Math.max(...rss.worker) : Number.NaN)} MB`;
      return summarize(
        'p99_ms',
        runs.ours.map((s) => p(s, 99)),
        runs.baseline.map((s) => p(s, 99)),
        notes,
      );
    } finally {
      await plugin.stop();
      await orm.close(true);
    }
  },
};
