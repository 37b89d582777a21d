import { isDeepStrictEqual } from 'node:util';
import { alternate } from '../lib/compare.js';
import { KEYS_PER_STORE, type BenchEnv } from '../lib/environment.js';
import { createBenchStore, keyRotation } from '../lib/fixtures.js';
import { cpuPerRequestText, measure, type Measured } from '../lib/measure.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';
import { fmt, median, summarize } from '../lib/stats.js';

/** The JSON our GET /me answers for the bench store: the baselines answer the very same document. */
export async function fetchMeBody(env: BenchEnv): Promise<string> {
  return fetchMe(env.api.url, env.store.keys[0]!);
}

async function fetchMe(url: string, key: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET /me at ${url}: HTTP ${response.status}`);
  return response.text();
}

/** What pg-me needs to build our document from the auth row: the links' base and the plan's limit. */
function baselineSettings(oursBody: string): Record<string, string> {
  const me = JSON.parse(oursBody) as { store: { url: string }; limits: { requests_per_minute: number } };
  return { PUBLIC_URL: me.store.url.replace(/\/s\/[^/]*$/, ''), REQUESTS_PER_MINUTE: String(me.limits.requests_per_minute) };
}

/**
 * GET /me req/s (2xx only) under 50 connections vs plain Fastify + pg running the same auth statement
 * (key lookup, rate-limit counter, last_used_at, store facts) and answering the same JSON.
 */
export const meScenario: Scenario = {
  id: 'me',
  async run(env) {
    const oursBody = await fetchMeBody(env);
    const baseline = await env.startBaseline('pg-me', baselineSettings(oursBody));
    try {
      const baselineBody = await fetchMe(baseline.url, env.store.keys[0]!);
      if (!isDeepStrictEqual(JSON.parse(baselineBody), JSON.parse(oursBody))) {
        throw new Error(`pg-me answers a different /me document:\n ours     ${oursBody}\n baseline ${baselineBody}`);
      }
      // The baseline counts its requests against keys of its own (a twin store): sharing ours would push
      // our keys toward their 300/min limit, and 429s would count against ours.
      const twin = await createBenchStore(env.pool, 'Bench Store', KEYS_PER_STORE);
      const nextKey = keyRotation(env.store.keys);
      const nextBaselineKey = keyRotation(twin.keys);
      const load = (url: string, next: () => string, durationSec: number) => ({
        url: `${url}/api/v1/me`,
        connections: SATURATION_CONNECTIONS,
        durationSec,
        next: () => ({ headers: { authorization: `Bearer ${next()}` } }),
      });
      const ours = (durationSec: number) => measure(env.oursCpu, load(env.api.url, nextKey, durationSec));
      const base = (durationSec: number) => measure(env.baselineCpu(baseline.process), load(baseline.url, nextBaselineKey, durationSec));
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
      if (non2xx)
        env.log(
          `me: WARNING ours had ${non2xx} non-2xx or failed requests (a key over its limit?): ${JSON.stringify(runs.ours.map((r) => r.statuses))}`,
        );
      const notes =
        `2xx req/s under ${SATURATION_CONNECTIONS} connections, ${env.measureSec} s per measurement; ` +
        `p99 ours ${fmt(median(runs.ours.map((r) => r.p99Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p99Ms)))} ms; ` +
        `non-2xx or failed ours: ${non2xx}${non2xx ? ` (${JSON.stringify(runs.ours.map((r) => r.statuses))})` : ''}; ` +
        `CPU per request ours ${cpuPerRequestText(runs.ours)}, baseline ${cpuPerRequestText(runs.baseline)}; ` +
        `${env.store.keys.length} keys of one paid store round-robin (per-key limit 300/min), the baseline as many keys of a twin store; ` +
        `baseline: plain Fastify + pg, SHA-256 of the key and the same auth statement (key, store, rate-limit counter, last_used_at), prepared as ours is, same JSON; ` +
        `ours does more: the rate-limit decision and its headers, the permission checks, the error catalogue and the response schema; aim ≥ 0.5`;
      return summarize(
        'req_per_s',
        runs.ours.map((r) => r.okPerSec),
        runs.baseline.map((r) => r.okPerSec),
        notes,
      );
    } finally {
      await baseline.process.stop();
    }
  },
};
