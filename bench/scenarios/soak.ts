// The soak (issue 25): a steady mixed load for a long time (30 minutes in the full run, 1.5 in the quick
// one; BENCH_SOAK_MINUTES) on a delivery log seeded to millions of rows, most of them older than the
// retention, while the housekeeping `retention` job prunes them. Does the p99 drift, does the memory of
// the API and the worker grow, do dead tuples pile up faster than autovacuum reclaims them?
// Three ids from one run: `soak` (p99 of the last window ÷ the first), `soak-rss` (RSS at the end ÷ after
// warm-up) and `soak-dead-tuples` (the peak of dead tuples ÷ live ones). See bench/README.md.
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { sealSecret } from '../../domain/secret-box.js';
import { generateWebhookSecret } from '../../domain/webhook-signature.js';
import type { BenchEnv } from '../lib/environment.js';
import { createBenchStore, keyRotation, seedOrders } from '../lib/fixtures.js';
import { percentile } from '../lib/many-stores.js';
import { orderInput } from '../lib/order-bodies.js';
import { rssMb } from '../lib/processes.js';
import type { Scenario } from '../lib/scenario.js';
import { startSinkReceiver } from '../lib/sink-receiver.js';
import { fmt, round, type ScenarioResult } from '../lib/stats.js';

const TABLES = ['webhook_deliveries', 'order_events'] as const;
/** Seeded history: 1 to 120 days back, so three quarters of the attempts are past 30 days and a quarter of the events past 90. */
const SEED_DAYS = 120;
/** Seeded attempts per seeded event (one per old endpoint): millions of rows from tens of thousands of events. */
const ENDPOINTS_SEEDED = 100;

interface Shape {
  minutes: number;
  seedRows: number;
  rate: number;
}

const shapeOf = (env: BenchEnv): Shape => ({
  minutes: Number(process.env.BENCH_SOAK_MINUTES ?? (env.quick ? 1.5 : 30)),
  seedRows: Number(process.env.BENCH_SOAK_ROWS ?? (env.quick ? 200_000 : 2_500_000)),
  // Requests per second, open loop: 20 % new orders (each a webhook), 50 % an order by id, 30 % a list page.
  rate: Number(process.env.BENCH_SOAK_RATE ?? 40),
});

interface TableSample {
  live: number;
  dead: number;
  upd: number;
  hotUpd: number;
  autovacuums: number;
  bytes: number;
}
interface Sample {
  at: number;
  rssApi: number;
  rssWorker: number;
  tables: Record<string, TableSample>;
}

type RequestKind = 'upsert' | 'byId' | 'list';
type Timed = [at: number, ms: number, kind: RequestKind];

interface SoakResult {
  shape: Shape;
  /** [seconds since start of load, latency ms, kind] of every request, by its scheduled start (open loop: no coordinated omission). */
  latencies: Timed[];
  errors: number;
  statuses: Record<string, number>;
  samples: Sample[];
  /** Seconds a VACUUM (autovacuum, or the retention job's when autovacuum is off) was seen on each table (sampled every second). */
  vacuumSeconds: Record<string, number>;
  /** Seconds since the start of load at which a retention DELETE was seen running (sampled every second). */
  retentionAt: number[];
  delivered: number;
  seedSeconds: number;
}

let run: Promise<SoakResult> | undefined;
const soakRun = (env: BenchEnv) => (run ??= runSoak(env, shapeOf(env)));

async function runSoak(env: BenchEnv, shape: Shape): Promise<SoakResult> {
  const { pool } = env;
  const store = await createBenchStore(pool, 'Soak Store', 40);
  await seedOrders(pool, store.id, 2000);
  const orderIds = (await pool.query<{ id: string }>('select id from orders where store_id = $1', [store.id])).rows.map((r) => r.id);
  const seeded = Date.now();
  await seedHistory(pool, store.id, shape.seedRows);
  const seedSeconds = (Date.now() - seeded) / 1000;
  env.log(`soak: seeded ${shape.seedRows} delivery attempts over ${SEED_DAYS} days in ${seedSeconds.toFixed(0)} s`);

  const sink = await startSinkReceiver();
  try {
    await pool.query(
      `insert into webhook_endpoints (id, store_id, url, events, secret_sealed) values ($1, $2, $3, '{order.created}', $4)`,
      [randomUUID(), store.id, sink.url, sealSecret(env.secretsKey, generateWebhookSecret())],
    );
    // The job's first run now (as an operator's "Trigger" would), then its schedule every 15 minutes.
    await env.temporal.schedule.getHandle('housekeeping/retention').trigger();

    const samples: Sample[] = [];
    const vacuumSeconds: Record<string, number> = Object.fromEntries(TABLES.map((t) => [t, 0]));
    const started = performance.now();
    const stopAt = started + shape.minutes * 60_000;
    const sampler = setInterval(
      () =>
        void sample(env, started).then(
          (s) => samples.push(s),
          () => undefined,
        ),
      5000,
    );
    const retentionAt: number[] = [];
    const vacuumWatch = setInterval(
      () =>
        void pool
          .query<{ relname: string | null }>(
            `select c.relname from pg_stat_progress_vacuum v join pg_class c on c.oid = v.relid where v.datname = current_database()
             union all
             -- a retention DELETE running (services/housekeeping/retention.ts): when, in the notes
             select null from pg_stat_activity where datname = current_database() and state = 'active' and query like 'with doomed as%'`,
          )
          .then(
            ({ rows }) => {
              for (const r of rows) {
                if (r.relname === null) retentionAt.push(Math.round((performance.now() - started) / 1000));
                else if (r.relname in vacuumSeconds) vacuumSeconds[r.relname]!++;
              }
            },
            () => undefined,
          ),
      1000,
    );
    samples.push(await sample(env, started));
    const load = await openLoop(env.api.url, keyRotation(store.keys), orderIds, shape.rate, started, stopAt);
    clearInterval(sampler);
    clearInterval(vacuumWatch);
    samples.push(await sample(env, started));
    await env.settle();
    return {
      shape,
      ...load,
      samples,
      vacuumSeconds,
      retentionAt: [...new Set(retentionAt)],
      delivered: sink.received().count,
      seedSeconds,
    };
  } finally {
    await sink.stop();
  }
}

/**
 * Seeds `rows` finished delivery attempts of old events (to endpoints since deleted) with timestamps
 * spread over SEED_DAYS. In one transaction that drops the table's secondary indexes and builds them again
 * after the insert (from their own definitions): inserting millions of rows into six indexes one by one
 * takes many times longer. Other sessions wait on the table meanwhile; nothing else runs then.
 */
async function seedHistory(pool: pg.Pool, storeId: string, rows: number): Promise<void> {
  const events = Math.max(1, Math.round(rows / ENDPOINTS_SEEDED));
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into webhook_endpoints (id, store_id, url, events, secret_sealed, active, deleted_at)
       select gen_random_uuid(), $1, 'https://old-receiver.example/hook/' || g, '{*}', 'sealed', false, now() - interval '1 day'
       from generate_series(1, $2::int) g`,
      [storeId, ENDPOINTS_SEEDED],
    );
    await client.query(
      `insert into order_events (id, store_id, order_id, type, backfill, actor, payload, created_at, dispatched_at, dispatch_count)
       select gen_random_uuid(), $1, o.id, 'order.created', false, 'bench', jsonb_build_object('seeded', g), t, t, 1
       from (select g, now() - interval '1 day' - make_interval(secs => g::float8 * ($3::int - 1) * 86400 / $2::int) as t from generate_series(1, $2::int) g) x
       join (select id, row_number() over () - 1 as rn, count(*) over () as n from orders where store_id = $1) o on o.rn = x.g % o.n`,
      [storeId, events, SEED_DAYS],
    );
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      `select i.relname as name, pg_get_indexdef(x.indexrelid) as definition
       from pg_index x join pg_class i on i.oid = x.indexrelid
       where x.indrelid = 'webhook_deliveries'::regclass and not x.indisprimary`,
    );
    for (const ix of indexes) await client.query(`drop index "${ix.name}"`);
    // Ids in insertion order: the primary key grows at its right edge (random ones would cost as much as the indexes).
    const prefix = randomBytes(4).toString('hex');
    await client.query(
      `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, status, response_status, duration_ms,
         created_at, attempted_at, finished_at, workflow_id, run_id, activity_id)
       select ($2 || lpad(to_hex(row_number() over (order by e.created_at, p.id)), 24, '0'))::uuid, e.store_id, p.id, e.id, e.type, e.order_id,
         'delivered', 200, 12, e.created_at, e.created_at, e.created_at + interval '12 milliseconds', 'webhook-dispatch/0-of-8', 'seeded', '1'
       from order_events e join webhook_endpoints p on p.store_id = e.store_id and p.deleted_at is not null
       where e.store_id = $1`,
      [storeId, prefix],
    );
    for (const ix of indexes) await client.query(ix.definition);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  await pool.query('analyze webhook_deliveries; analyze order_events; analyze webhook_endpoints');
}

/** The RSS of the API and the worker, and the two tables' counters. */
async function sample(env: BenchEnv, started: number): Promise<Sample> {
  const { rows } = await env.pool.query<{
    relname: string;
    live: string;
    dead: string;
    upd: string;
    hot: string;
    autovacuums: string;
    bytes: string;
  }>(
    `select relname, n_live_tup as live, n_dead_tup as dead, n_tup_upd as upd, n_tup_hot_upd as hot, autovacuum_count as autovacuums,
       pg_total_relation_size(relid) as bytes
     from pg_stat_user_tables where relname = any($1::text[])`,
    [TABLES],
  );
  const workerPid = env.worker.pid();
  return {
    at: (performance.now() - started) / 1000,
    rssApi: rssMb(env.api.process.pid),
    rssWorker: workerPid ? rssMb(workerPid) : Number.NaN,
    tables: Object.fromEntries(
      rows.map((r) => [
        r.relname,
        {
          live: Number(r.live),
          dead: Number(r.dead),
          upd: Number(r.upd),
          hotUpd: Number(r.hot),
          autovacuums: Number(r.autovacuums),
          bytes: Number(r.bytes),
        },
      ]),
    ),
  };
}

/** `rate` requests per second until `stopAt`, each started on its schedule whatever the others do. */
async function openLoop(apiUrl: string, nextKey: () => string, orderIds: string[], rate: number, started: number, stopAt: number) {
  const latencies: Timed[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let n = 0;
  const inFlight = new Set<Promise<void>>();
  const one = async (scheduled: number, i: number) => {
    const kind: RequestKind = i % 10 < 2 ? 'upsert' : i % 10 < 7 ? 'byId' : 'list';
    const headers: Record<string, string> = { authorization: `Bearer ${nextKey()}` };
    let url = `${apiUrl}/api/v1/orders?limit=25`;
    let init: RequestInit = { headers };
    if (kind === 'byId') url = `${apiUrl}/api/v1/orders/${orderIds[(i * 7919) % orderIds.length]}`;
    if (kind === 'upsert') {
      url = `${apiUrl}/api/v1/orders`;
      init = {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(orderInput(`soak-${i}-${randomUUID().slice(0, 8)}`, 3, null)),
      };
    }
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status >= 400) errors++;
    } catch {
      errors++;
    }
    latencies.push([(scheduled - started) / 1000, performance.now() - scheduled, kind]);
  };
  while (performance.now() < stopAt) {
    const scheduled = started + (n * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const p = one(scheduled, n++);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  return { latencies, errors, statuses };
}

/** The p99 of the requests scheduled within [from, to) seconds. */
const p99Between = (latencies: Timed[], from: number, to: number, kind?: RequestKind) =>
  percentile(
    latencies.filter(([at, , k]) => at >= from && at < to && (!kind || k === kind)).map(([, ms]) => ms),
    99,
  );

/** Seconds as ranges ("0–128, 901–1017 s"): when retention was seen deleting. */
function ranges(seconds: number[]): string {
  const out: [number, number][] = [];
  for (const s of [...seconds].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && s - last[1] <= 5) last[1] = s;
    else out.push([s, s]);
  }
  return out.length ? `${out.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')} s` : 'never';
}

/** The slowest minute's p99 for each kind of request: which requests a bad minute held up. */
function worstMinuteText(latencies: Timed[], minutes: number): string {
  const p99s = Array.from({ length: Math.ceil(minutes) }, (_, m) => p99Between(latencies, m * 60, (m + 1) * 60));
  const worst = p99s.indexOf(Math.max(...p99s));
  const kinds: RequestKind[] = ['upsert', 'byId', 'list'];
  return `slowest minute ${worst} (p99 ${fmt(p99s[worst]!)} ms): ${kinds.map((k) => `${k} ${fmt(p99Between(latencies, worst * 60, (worst + 1) * 60, k))}`).join(', ')} ms`;
}

/** The windows compared: after a warm-up (10 %, at most a minute), the first and the last tenth of the run (20 s to 3 minutes each). */
function windows(seconds: number) {
  const warm = Math.min(60, seconds * 0.1);
  const width = Math.min(180, Math.max(20, seconds * 0.1));
  return { first: [warm, warm + width] as const, last: [seconds - width, seconds] as const };
}

const closestSample = (samples: Sample[], at: number) =>
  samples.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best), samples[0]!);

function summary(r: SoakResult) {
  const seconds = r.shape.minutes * 60;
  const w = windows(seconds);
  const perMinute = Array.from({ length: Math.ceil(r.shape.minutes) }, (_, m) => fmt(p99Between(r.latencies, m * 60, (m + 1) * 60)));
  const start = closestSample(r.samples, w.first[1]);
  const end = r.samples[r.samples.length - 1]!;
  const first = r.samples[0]!;
  const d = (t: string) => ({
    upd: end.tables[t]!.upd - first.tables[t]!.upd,
    hot: end.tables[t]!.hotUpd - first.tables[t]!.hotUpd,
    autovacuums: end.tables[t]!.autovacuums - first.tables[t]!.autovacuums,
  });
  const deliveries = d('webhook_deliveries');
  const peak = (t: string) => r.samples.reduce((best, s) => (s.tables[t]!.dead > best.tables[t]!.dead ? s : best), r.samples[0]!);
  const mb = (bytes: number) => fmt(bytes / 2 ** 20);
  const tableText = (t: string) =>
    `${t}: ${first.tables[t]!.live} → ${end.tables[t]!.live} live rows, ${mb(first.tables[t]!.bytes)} → ${mb(end.tables[t]!.bytes)} MB, ` +
    `dead tuples peak ${peak(t).tables[t]!.dead} (at ${fmt(peak(t).at)} s), end ${end.tables[t]!.dead}, ${d(t).autovacuums} autovacuums, ~${r.vacuumSeconds[t]} s vacuuming, by autovacuum or the retention job (sampled each second)`;
  const common =
    `${r.shape.minutes} min at ${r.shape.rate} req/s open loop (20 % new orders with a webhook to a loopback receiver, 50 % order by id, 30 % list page), ` +
    `${r.latencies.length} requests, ${r.errors} errors (${JSON.stringify(r.statuses)}), ${r.delivered} webhooks received; ` +
    `${r.shape.seedRows} attempts seeded over ${SEED_DAYS} days in ${fmt(r.seedSeconds)} s, the retention job triggered at the start and on its schedule; ` +
    `${tableText('webhook_deliveries')}; ${tableText('order_events')}; ` +
    `HOT updates of webhook_deliveries ${deliveries.hot} of ${deliveries.upd} (${deliveries.upd ? fmt((100 * deliveries.hot) / deliveries.upd) : '–'} %); ` +
    `machine shared with other work: read the drift, not the absolute figures`;
  return { w, perMinute, start, end, peak, common };
}

export const soakScenario: Scenario = {
  id: 'soak',
  run: async (env): Promise<ScenarioResult> => {
    const r = await soakRun(env);
    const s = summary(r);
    const firstP99 = p99Between(r.latencies, ...s.w.first);
    const lastP99 = p99Between(r.latencies, ...s.w.last);
    const drift = (lastP99 / firstP99 - 1) * 100;
    return {
      metric: 'p99_ms',
      ours: round(lastP99, 1),
      baseline: round(firstP99, 1),
      ratio: round(lastP99 / firstP99, 3),
      rounds: [round(lastP99 / firstP99, 3)],
      notes:
        `p99 drift ${fmt(drift)} % (goal ≤ 10 %): ours = p99 ms of the last ${fmt(s.w.last[1] - s.w.last[0])} s, baseline = p99 of the first ${fmt(s.w.first[1] - s.w.first[0])} s after ${fmt(s.w.first[0])} s of warm-up, same run; ` +
        `p99 per minute ${s.perMinute.join(', ')} ms; ${worstMinuteText(r.latencies, r.shape.minutes)}; retention DELETEs seen running at ${ranges(r.retentionAt)} into the load; ${s.common}`,
    };
  },
};

export const soakRssScenario: Scenario = {
  id: 'soak-rss',
  run: async (env): Promise<ScenarioResult> => {
    const r = await soakRun(env);
    const s = summary(r);
    const before = s.start.rssApi + s.start.rssWorker;
    const after = s.end.rssApi + s.end.rssWorker;
    return {
      metric: 'rss_mb',
      ours: round(after, 1),
      baseline: round(before, 1),
      ratio: round(after / before, 3),
      rounds: [round(after / before, 3)],
      notes:
        `RSS MB of the API + the worker at the end of the soak ÷ after warm-up (goal: flat); API ${fmt(s.start.rssApi)} → ${fmt(s.end.rssApi)}, ` +
        `worker ${fmt(s.start.rssWorker)} → ${fmt(s.end.rssWorker)} MB; RSS per sample ${r.samples.map((x) => fmt(x.rssApi + x.rssWorker)).join(' ')}; ${s.common}`,
    };
  },
};

export const soakDeadTuplesScenario: Scenario = {
  id: 'soak-dead-tuples',
  run: async (env): Promise<ScenarioResult> => {
    const r = await soakRun(env);
    const s = summary(r);
    const t = 'webhook_deliveries';
    const peak = s.peak(t).tables[t]!;
    return {
      metric: 'rows',
      ours: peak.dead,
      baseline: peak.live,
      ratio: round(peak.dead / Math.max(1, peak.live), 3),
      rounds: [round(peak.dead / Math.max(1, peak.live), 3)],
      notes:
        `peak dead tuples of webhook_deliveries during the soak ÷ its live rows then (goal: bounded; autovacuum is set to start at 2 % dead, and with autovacuum off the retention job vacuums every 200,000 rows it deletes); ` +
        `dead tuples per sample ${r.samples.map((x) => x.tables[t]!.dead).join(' ')}; ${s.common}`,
    };
  },
};

/** The soak's three figures, from one run. */
export const soakScenarios: Scenario[] = [soakScenario, soakRssScenario, soakDeadTuplesScenario];
