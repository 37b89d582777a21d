// The many-store webhook day (issue 22): the tail of isolated orders across 2,000 stores, healthy stores
// beside 100 whose endpoint hangs, the same receivers over TLS, and both day scenarios again with Temporal
// on PostgreSQL. Each is one round (in the full run too): the day is long, and its tail needs thousands of
// deliveries more than repeated rounds. See bench/README.md.
import type { BenchEnv } from '../lib/environment.js';
import { percentile } from '../lib/many-stores.js';
import type { Scenario } from '../lib/scenario.js';
import { fmt, summarize, type Metric, type ScenarioResult } from '../lib/stats.js';
import { withTemporalPostgres } from '../lib/temporal-postgres.js';
import { runDay, type DayResult } from '../lib/webhook-day.js';

/** One measured figure against its baseline (measured in the same run, or the goal where none can be: the notes say which). */
const one = (metric: Metric, ours: number, baseline: number, notes: string): ScenarioResult => summarize(metric, [ours], [baseline], notes);

const GOAL_NOTE = 'baseline = the goal of issue 22 (not a measurement), so the ratio reads as ours ÷ goal';

const tailShape = (env: BenchEnv) => ({
  label: 'tail',
  healthyStores: 2000,
  badStores: 0,
  rate: 20,
  badRate: 0,
  seconds: env.quick ? 20 : 60,
});

const badShape = (env: BenchEnv) => ({
  label: 'bad',
  healthyStores: 1000,
  badStores: 100,
  rate: 20,
  // Each bad store gets an order every 10 s: more often than one 8 s timeout, so they never go quiet.
  badRate: 10,
  seconds: env.quick ? 15 : 40,
});

let tail: Promise<DayResult> | undefined;
const tailRun = (env: BenchEnv) => (tail ??= runDay(env, tailShape(env)));

const tailFigure =
  (q: number, metric: Metric, name: string): Scenario['run'] =>
  async (env) => {
    const r = await tailRun(env);
    return one(
      metric,
      percentile(r.latencies, q),
      percentile(r.direct, q),
      `${name} ms of isolated orders across many stores, LOWER is better; goal p50 ≤ 15, p99 ≤ 100, p99.9 ≤ 500 ms; baseline = the direct signed POST's ${name}; ${r.notes}`,
    );
  };

export const webhookTailP50Scenario: Scenario = { id: 'webhook-tail-p50', run: tailFigure(50, 'p50_ms', 'p50') };
export const webhookTailP99Scenario: Scenario = { id: 'webhook-tail-p99', run: tailFigure(99, 'p99_ms', 'p99') };
export const webhookTailP999Scenario: Scenario = { id: 'webhook-tail-p999', run: tailFigure(99.9, 'p999_ms', 'p99.9') };
export const webhookTailEventsScenario: Scenario = {
  id: 'webhook-tail-events',
  run: async (env) => {
    const r = await tailRun(env);
    if (Number.isNaN(r.eventsPerOrder)) throw new Error(`Temporal's history could not be counted; ${r.notes}`);
    return one(
      'events_per_order',
      r.eventsPerOrder,
      2,
      `Temporal history events per order, LOWER is better; goal ≤ 2; ${GOAL_NOTE}; ${r.notes}`,
    );
  },
};
export const webhookTailCpuScenario: Scenario = {
  id: 'webhook-tail-cpu',
  run: async (env) => {
    const r = await tailRun(env);
    return one(
      'cpu_ms',
      r.cpuPerDelivery,
      3,
      `ms of CPU per delivery, all processes, idle subtracted, LOWER is better; goal ≤ 3; ${GOAL_NOTE}; ${r.notes}`,
    );
  },
};

export const webhookBadNeighboursP99Scenario: Scenario = {
  id: 'webhook-bad-neighbours-p99',
  run: async (env) => {
    const r = await runDay(env, badShape(env));
    return one(
      'p99_ms',
      percentile(r.latencies, 99),
      percentile(r.direct, 99),
      `p99 ms of the healthy stores' deliveries while 100 stores' endpoints hang, LOWER is better; goal ≤ 500 ms; baseline = the direct signed POST's p99; ` +
        `healthy p50 ${fmt(percentile(r.latencies, 50))}, p99.9 ${fmt(percentile(r.latencies, 99.9))}, max ${fmt(percentile(r.latencies, 100))} ms; ${r.notes}`,
    );
  },
};

export const webhookTlsP50Scenario: Scenario = {
  id: 'webhook-tls-p50',
  run: async (env) => {
    const r = await runDay(env, { ...tailShape(env), label: 'tls', healthyStores: 500, seconds: env.quick ? 10 : 30, tls: true });
    return one(
      'p50_ms',
      percentile(r.latencies, 50),
      percentile(r.direct, 50),
      `p50 ms of isolated orders to HTTPS receivers (500 stores, 20 orders/s), LOWER is better; goal ≤ 2 × the direct TLS POST (a new TLS connection each, same path); ` +
        `p99 ${fmt(percentile(r.latencies, 99))} ms, direct p99 ${fmt(percentile(r.direct, 99))} ms; ${r.notes}`,
    );
  },
};

/** The tail and bad-neighbour phases once more with Temporal on PostgreSQL (npm run temporal:postgres), shorter. */
let onPostgres: Promise<{ tail: DayResult; bad: DayResult }> | undefined;
const postgresRuns = (env: BenchEnv) =>
  (onPostgres ??= withTemporalPostgres(env, async (t) => {
    const seconds = env.quick ? 10 : 30;
    const on = { temporal: t.client, groups: t.groups, where: t.where };
    const tailR = await runDay(env, { ...tailShape(env), ...on, label: 'tail-pg', seconds });
    const badR = await runDay(env, { ...badShape(env), ...on, label: 'bad-pg', seconds });
    return { tail: tailR, bad: badR };
  }));

export const webhookTailP99TemporalPgScenario: Scenario = {
  id: 'webhook-tail-p99-temporal-pg',
  run: async (env) => {
    const { tail: r } = await postgresRuns(env);
    return one(
      'p99_ms',
      percentile(r.latencies, 99),
      percentile(r.direct, 99),
      `webhook-tail-p99 with Temporal on PostgreSQL (production's persistence) instead of the in-memory dev server; LOWER is better; ` +
        `p50 ${fmt(percentile(r.latencies, 50))}, p99.9 ${fmt(percentile(r.latencies, 99.9))} ms, ${fmt(r.eventsPerOrder)} history events per order, ${fmt(r.cpuPerDelivery)} ms CPU per delivery (idle subtracted; Temporal's PostgreSQL backends counted); ${r.notes}`,
    );
  },
};

export const webhookBadNeighboursP99TemporalPgScenario: Scenario = {
  id: 'webhook-bad-neighbours-p99-temporal-pg',
  run: async (env) => {
    const { bad: r } = await postgresRuns(env);
    return one(
      'p99_ms',
      percentile(r.latencies, 99),
      percentile(r.direct, 99),
      `webhook-bad-neighbours-p99 with Temporal on PostgreSQL; LOWER is better; healthy p50 ${fmt(percentile(r.latencies, 50))}, max ${fmt(percentile(r.latencies, 100))} ms; ${r.notes}`,
    );
  },
};
