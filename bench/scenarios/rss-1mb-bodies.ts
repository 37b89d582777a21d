import { LARGE_BODIES_AT_ONCE, LARGE_BODY_TURNS_PER_OWNER, LARGE_BODY_WAITING } from '../../api/plugins/raw-json-body.js';
import { bigOrderBodies } from '../lib/big-order-bodies.js';
import type { BenchEnv } from '../lib/environment.js';
import { createBenchStore, keyRotation } from '../lib/fixtures.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { peakRssMb, resetPeakRss, rssMb } from '../lib/processes.js';
import type { Scenario } from '../lib/scenario.js';
import { startSinkReceiver } from '../lib/sink-receiver.js';
import { fmt, round } from '../lib/stats.js';

/** The ceiling for the API and the worker. */
const BUDGET_MB = 400;
/** The API's bodyLimit (api/app.ts); bodies stay a little under it. */
const BODY_LIMIT = 1_048_576;
/** Connections per phase: a busy store's plugins, then the harness's saturation level. */
const PHASES = [10, 50];

interface Phase {
  connections: number;
  load: LoadResult;
  before: { api: number; worker: number };
  peak: { api: number; worker: number };
  deliveries: number;
  drainSec: number;
}

/** Registers one webhook endpoint for order.created and order.updated, so every big order also goes through the worker. */
async function subscribe(apiUrl: string, key: string, url: string): Promise<void> {
  const r = await fetch(`${apiUrl}/api/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['order.created', 'order.updated'] }),
  });
  if (r.status !== 201) throw new Error(`POST /webhooks: HTTP ${r.status} ${await r.text()}`);
}

/** Both processes' peak RSS while `work` runs: VmHWM reset at the start, cross-checked by sampling VmRSS. */
async function peakDuring<T>(pids: { api: number; worker: number }, work: () => Promise<T>) {
  const peak = { api: rssMb(pids.api), worker: rssMb(pids.worker) };
  resetPeakRss(pids.api);
  resetPeakRss(pids.worker);
  const timer = setInterval(() => {
    peak.api = Math.max(peak.api, rssMb(pids.api));
    peak.worker = Math.max(peak.worker, rssMb(pids.worker));
  }, 250);
  try {
    const result = await work();
    return { result, peak: { api: Math.max(peak.api, peakRssMb(pids.api)), worker: Math.max(peak.worker, peakRssMb(pids.worker)) } };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Peak RSS of a fresh API and of the worker while POST /orders bodies of ~1 MB (the body limit) arrive,
 * each order's event (~0.7 MB: the 200 items kept) delivered by the worker to a loopback endpoint.
 */
export const rss1mbBodiesScenario: Scenario = {
  id: 'rss-1mb-bodies',
  async run(env: BenchEnv) {
    const durationSec = env.quick ? 10 : 30;
    const receiver = await startSinkReceiver();
    const api = await env.startApi('api-big-bodies');
    const pids = { api: api.process.pid, worker: env.oursCpu.worker!()[0]! };
    try {
      const store = await createBenchStore(env.pool, 'Bench Big Bodies Store', 200);
      await env.pool.query(`update api_keys set scopes = array_append(scopes, 'webhooks:write') where store_id = $1`, [store.id]);
      await subscribe(api.url, store.keys[0]!, receiver.url);
      const nextKey = keyRotation(store.keys);
      const phases: Phase[] = [];
      for (const [i, connections] of PHASES.entries()) {
        await env.settle();
        const before = { api: rssMb(pids.api), worker: rssMb(pids.worker) };
        const deliveredBefore = receiver.received().count;
        const bodies = bigOrderBodies({ maxBytes: BODY_LIMIT - 8192, idPrefix: `big-${i}`, repeatShare: 0.2, seed: i });
        const { result, peak } = await peakDuring(pids, async () => {
          const load = await runLoad({
            url: `${api.url}/api/v1/orders`,
            method: 'POST',
            connections,
            durationSec,
            headers: { 'content-type': 'application/json' },
            next: () => ({ body: bodies(), headers: { authorization: `Bearer ${nextKey()}` } }),
          });
          // The deliveries are the worker's share of the load: the peak counts until they are through.
          const drain = await env.settle();
          return { load, drainSec: drain.seconds };
        });
        const phase = { connections, ...result, before, peak, deliveries: receiver.received().count - deliveredBefore };
        phases.push(phase);
        env.log(
          `rss-1mb-bodies: ${connections} connections: ${phase.load.ok} orders (${fmt(phase.load.okPerSec)}/s, statuses ${JSON.stringify(phase.load.statuses)}), ${phase.deliveries} deliveries; ` +
            `peak RSS API ${fmt(peak.api)} MB (before ${fmt(before.api)}), worker ${fmt(peak.worker)} MB (before ${fmt(before.worker)})`,
        );
      }
      const worst = (p: Phase) => Math.max(p.peak.api, p.peak.worker);
      const ours = Math.max(...phases.map(worst));
      const got = receiver.received();
      const notes =
        `peak RSS in MB (VmHWM, reset before each phase, and VmRSS sampled every 250 ms) of a fresh API and of the worker, aim ≤ ${BUDGET_MB} MB each; ` +
        `ours = the larger peak of the two over all phases, baseline = the ${BUDGET_MB} MB budget, ratio = ours ÷ budget (≤ 1 met), rounds = each phase's larger peak ÷ budget; ` +
        `POST /orders bodies of ${fmt(BODY_LIMIT / 1024)} kB less 8 kB (${'~'}277 long line items, of which the API keeps 200, and a 9,000-character note; 80 % new / 20 % repeated ids), ` +
        `one webhook endpoint (order.created, order.updated) on a loopback receiver, so each order's event (the stored order) goes through the worker; ` +
        phases
          .map(
            (p) =>
              `${p.connections} connections for ${durationSec} s: ${p.load.ok} orders at ${fmt(p.load.okPerSec)}/s (non-2xx ${p.load.non2xx}: statuses ${JSON.stringify(p.load.statuses)}, errors ${p.load.errors}, p99 ${fmt(p.load.p99Ms)} ms), ` +
              `${p.deliveries} deliveries, drained ${fmt(p.drainSec)} s after the load; API RSS ${fmt(p.before.api)} → peak ${fmt(p.peak.api)} MB, worker ${fmt(p.before.worker)} → peak ${fmt(p.peak.worker)} MB`,
          )
          .join('; ') +
        // The 503s are the bound working, not failures: said here so a reader of the figure does not take them for errors.
        `; a 503 (with Retry-After) is the API's bound on large bodies at work: ${LARGE_BODIES_AT_ONCE} are handled at once ` +
        `(${LARGE_BODY_TURNS_PER_OWNER} of one store while another waits) and ${LARGE_BODY_WAITING.perOwner} of a store wait in line (api/plugins/raw-json-body.ts); ` +
        `the others are refused before their body is read, and the load generator sends again at once instead of waiting` +
        `; largest delivery ${fmt(got.largest / 1024)} kB, ${fmt(got.bytes / 1024 / 1024)} MB delivered in all`;
      return {
        metric: 'rss_mb',
        ours: round(ours, 1),
        baseline: BUDGET_MB,
        ratio: round(ours / BUDGET_MB, 3),
        rounds: phases.map((p) => round(worst(p) / BUDGET_MB, 3)),
        notes,
      };
    } finally {
      await api.process.stop();
      await receiver.stop();
    }
  },
};
