import { alternate } from './compare.js';
import type { BenchEnv } from './environment.js';
import { keyRotation } from './fixtures.js';
import type { NextRequest } from './load.js';
import { cpuPerRequestText, measure, type Measured } from './measure.js';
import { rssMb } from './processes.js';
import type { Metric, ScenarioResult } from './stats.js';
import { fmt, median, summarize } from './stats.js';

export interface PairSpec {
  id: string;
  env: BenchEnv;
  /** req_per_s: saturation; p99_ms: at a fixed rate of half the baseline's maximum. */
  metric: Extract<Metric, 'req_per_s' | 'p99_ms'>;
  baselineUrl: string;
  baselineCpu: ReturnType<BenchEnv['baselineCpu']>;
  path: string;
  method?: 'GET' | 'POST';
  connections: number;
  keys: string[];
  /** Keys the baseline authenticates and counts requests against as ours does (a twin store's, not to push ours toward their limit); none: keyless. */
  baselineKeys?: string[];
  /** Per request: path and body (both sides get the same sequence); ours also gets the next key. */
  request?: () => Omit<NextRequest, 'headers'>;
  /** Words for the notes: what is measured and what the baseline does. */
  what: string;
  aim: string;
}

/** Ours vs a baseline on one route, A B rounds: saturating req/s, or p99 at a fixed rate. Keys round-robin for ours (and the baseline's, when given). */
export async function runPair(spec: PairSpec): Promise<ScenarioResult> {
  const { env, id } = spec;
  const nextKey = keyRotation(spec.keys);
  const nextBaselineKey = spec.baselineKeys ? keyRotation(spec.baselineKeys) : null;
  const headers = spec.method === 'POST' ? { 'content-type': 'application/json' } : undefined;
  const ours = (durationSec: number, overallRate?: number) =>
    measure(env.oursCpu, {
      url: `${env.api.url}${spec.path}`,
      method: spec.method,
      headers,
      connections: spec.connections,
      durationSec,
      overallRate,
      next: () => ({ ...spec.request?.(), headers: { authorization: `Bearer ${nextKey()}` } }),
    });
  const base = (durationSec: number, overallRate?: number) =>
    measure(spec.baselineCpu, {
      url: `${spec.baselineUrl}${spec.path}`,
      method: spec.method,
      headers,
      connections: spec.connections,
      durationSec,
      overallRate,
      ...(spec.request || nextBaselineKey
        ? {
            next: () => ({
              ...spec.request?.(),
              ...(nextBaselineKey ? { headers: { authorization: `Bearer ${nextBaselineKey()}` } } : {}),
            }),
          }
        : {}),
    });
  const rss: number[] = [];
  await ours(env.warmupSec);
  let rate: number | undefined;
  let max = Number.NaN;
  if (spec.metric === 'p99_ms') {
    max = (await base(Math.max(env.warmupSec, env.quick ? 2 : 5))).okPerSec;
    rate = Math.max(1, Math.floor(max / 2));
    env.log(`${id}: baseline maximum ${fmt(max)} req/s; measuring p99 at ${rate} req/s`);
  } else {
    await base(env.warmupSec);
  }
  const p99 = spec.metric === 'p99_ms';
  const runs = await alternate<Measured>({
    id,
    rounds: env.rounds,
    unit: p99 ? 'ms p99' : 'req/s',
    ours: async () => {
      const r = await ours(env.measureSec, rate);
      rss.push(rssMb(env.api.process.pid));
      return r;
    },
    baseline: () => base(env.measureSec, rate),
    settle: env.settle,
    detail: (o) => `ours non-2xx ${o.non2xx}, errors ${o.errors}`,
    value: (m) => (p99 ? m.p99Ms : m.okPerSec),
    log: env.log,
  });
  const failed = runs.ours.reduce((n, r) => n + r.non2xx + r.errors, 0);
  const baseFailed = runs.baseline.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (failed) env.log(`${id}: WARNING ours had ${failed} non-2xx or failed requests: ${JSON.stringify(runs.ours.map((r) => r.statuses))}`);
  const notes =
    (p99
      ? `p99 ms, LOWER is better: ratio = ours p99 ÷ baseline p99; fixed ${rate} req/s = half the baseline's maximum ${fmt(max)} req/s, `
      : `2xx req/s, saturating, `) +
    `${spec.connections} connections, ${env.measureSec} s per measurement; ${spec.what}; ` +
    `p50 ours ${fmt(median(runs.ours.map((r) => r.p50Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p50Ms)))} ms; ` +
    `p99 ours ${fmt(median(runs.ours.map((r) => r.p99Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p99Ms)))} ms; ` +
    `2xx req/s ours ${fmt(median(runs.ours.map((r) => r.okPerSec)))} vs baseline ${fmt(median(runs.baseline.map((r) => r.okPerSec)))}; ` +
    `CPU per request ours ${cpuPerRequestText(runs.ours)}, baseline ${cpuPerRequestText(runs.baseline)}; ` +
    `non-2xx or failed ours ${failed}${failed ? ` ${JSON.stringify(runs.ours.map((r) => r.statuses))}` : ''}, baseline ${baseFailed}; ` +
    `API RSS after each ours measurement ${rss.map((m) => fmt(m)).join(', ')} MB; ${spec.keys.length} keys round-robin; aim ${spec.aim}`;
  const value = (m: Measured) => (p99 ? m.p99Ms : m.okPerSec);
  return summarize(spec.metric, runs.ours.map(value), runs.baseline.map(value), notes);
}
