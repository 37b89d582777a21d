import { alternate } from '../lib/compare.js';
import type { BenchEnv } from '../lib/environment.js';
import { keyRotation } from '../lib/fixtures.js';
import { cpuPerRequestText, measure, type Measured } from '../lib/measure.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

/** The JSON our GET /me answers for the bench store: the baselines answer the very same document. */
export async function fetchMeBody(env: BenchEnv): Promise<string> {
  const response = await fetch(`${env.api.url}/api/v1/me`, { headers: { authorization: `Bearer ${env.store.keys[0]}` } });
  if (response.status !== 200) throw new Error(`GET /me: HTTP ${response.status}`);
  return response.text();
}

/** GET /me req/s (2xx only) under 50 connections vs a bare Fastify route answering the same JSON. */
export const meScenario: Scenario = {
  id: 'me',
  async run(env) {
    const baseline = await env.startBaseline('bare-fastify', { BODY_JSON: await fetchMeBody(env) });
    try {
      const nextKey = keyRotation(env.store.keys);
      const ours = (durationSec: number) =>
        measure(env.oursCpu, {
          url: `${env.api.url}/api/v1/me`,
          connections: SATURATION_CONNECTIONS,
          durationSec,
          next: () => ({ headers: { authorization: `Bearer ${nextKey()}` } }),
        });
      const base = (durationSec: number) => measure(env.baselineCpu(baseline.process), { url: `${baseline.url}/api/v1/me`, connections: SATURATION_CONNECTIONS, durationSec });
      await ours(env.warmupSec);
      await base(env.warmupSec);
      const runs = await alternate<Measured>({
        id: 'me',
        rounds: env.rounds,
        unit: 'req/s',
        ours: () => ours(env.measureSec),
        baseline: () => base(env.measureSec),
        settle: env.settle,
        detail: (o) => `ours non-2xx ${o.non2xx}, errors ${o.errors}`,
        value: (m) => m.okPerSec,
        log: env.log,
      });
      const non2xx = runs.ours.reduce((n, r) => n + r.non2xx + r.errors, 0);
      if (non2xx) env.log(`me: WARNING ours had ${non2xx} non-2xx or failed requests (a key over its limit?): ${JSON.stringify(runs.ours.map((r) => r.statuses))}`);
      const notes =
        `2xx req/s under ${SATURATION_CONNECTIONS} connections, ${env.measureSec} s per measurement; ` +
        `p99 ours ${fmt(median(runs.ours.map((r) => r.p99Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p99Ms)))} ms; ` +
        `non-2xx or failed ours: ${non2xx}${non2xx ? ` (${JSON.stringify(runs.ours.map((r) => r.statuses))})` : ''}; ` +
        `CPU per request ours ${cpuPerRequestText(runs.ours)}, baseline ${cpuPerRequestText(runs.baseline)}; ` +
        `${env.store.keys.length} keys of one paid store round-robin (per-key limit 300/min); baseline: bare Fastify, same JSON; aim ≥ 0.5`;
      return summarize('req_per_s', runs.ours.map((r) => r.okPerSec), runs.baseline.map((r) => r.okPerSec), notes);
    } finally {
      await baseline.process.stop();
    }
  },
};
