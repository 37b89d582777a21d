import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { freePort } from '../../config/free-port.js';
import { createTemporalClient } from '../../temporal/client.js';
import { ensureTemporalCli, startDevServer } from '../../dev/temporal/dev-server.js';
import { onCleanup } from './cleanup.js';
import { postgresBackends, processesMatching, type CpuGroups } from './cpu.js';
import { freshDatabase } from './database.js';
import { createBenchStore, seedOrders, type BenchStore } from './fixtures.js';
import { makeTestTls, type TestTls } from './tls.js';
import { waitForDrain, type Drain } from './settle.js';
import { buildService, logDir, repoRoot, spawnNode, startScriptArgs, waitForHttp, type RunningProcess } from './processes.js';

export interface BenchEnv {
  quick: boolean;
  rounds: number;
  /** Seconds of load per measurement. */
  measureSec: number;
  /** Seconds of load that warm each server up before its first measurement. */
  warmupSec: number;
  databaseUrl: string;
  /** A small pool for fixtures and drain checks. */
  pool: pg.Pool;
  /** Our API, as a separate process. */
  api: { url: string; process: RunningProcess };
  /** A paid store with many secret keys (see bench/README.md, "Rate limits") and 10,000 earlier orders. */
  store: BenchStore;
  log: (line: string) => void;
  /** Processes whose CPU counts for our side: the API, the worker, the Temporal server and this database's backends. */
  oursCpu: CpuGroups;
  /** The same for a baseline: its server process and this database's backends. */
  baselineCpu(proc: RunningProcess): CpuGroups;
  /** A client of the bench's Temporal dev server (for counts such as history events per delivery). */
  temporal: Client;
  /** Waits (up to 3 minutes) until order events are through the outbox, the workflows and Temporal, and our processes are idle. */
  settle(): Promise<Drain>;
  /** Starts another API process like `api` (same database, Temporal and secrets key) on a free loopback port; log .data/bench-logs/<name>.log. */
  startApi(name: string, nodeArgs?: string[]): Promise<{ url: string; process: RunningProcess }>;
  /** Starts a baseline server (bench/baselines/<name>.ts) on a free loopback port and waits until it answers. */
  startBaseline(name: string, env?: Record<string, string>): Promise<{ url: string; process: RunningProcess }>;
  /** The 32-byte SECRETS_KEY the API and worker run with (to seal endpoint secrets written in bulk). */
  secretsKey: Buffer;
  /** The environment every service process of the bench gets (database, Temporal, secrets key, loopback targets, test CA). */
  serviceEnv: Record<string, string>;
  /** The worker (its outbox relay included): the one running now, stopped and started again by the drain and cold-start scenarios. */
  worker: BenchWorker;
  /** A test CA and a certificate for localhost / 127.0.0.1 signed by it; the worker trusts the CA (NODE_EXTRA_CA_CERTS). */
  tls: TestTls;
  /** Where PostgreSQL and Temporal run, and their versions: recorded in the report. */
  where: { postgres: string; temporal: string };
}

/** The bench's worker process, replaceable: `stop()` leaves no worker, `start()` starts a new one like the first. */
export interface BenchWorker {
  /** The running worker's pid (undefined while none runs). */
  pid(): number | undefined;
  /** Its Prometheus page (the Temporal SDK's metrics appended), or undefined while none runs. */
  metricsUrl(): string | undefined;
  stop(): Promise<void>;
  /** Starts a worker (after stop()); resolves at once, when the process is spawned (not yet polling). */
  start(env?: Record<string, string>): Promise<RunningProcess>;
}

/** Keys per benchmark store: enough that 5,000 req/s for a whole minute stays under 300/min per key. */
export const KEYS_PER_STORE = 1000;
const SETTLE_TIMEOUT_MS = 180_000;
/** Orders the bench store holds before the first measurement. */
export const EARLIER_ORDERS = 10_000;

/** Brings up everything for real: PostgreSQL (fresh database), a Temporal dev server, the worker and the API. */
export async function setUp(opts: { quick: boolean; profile: boolean; log: (line: string) => void }): Promise<BenchEnv> {
  const { log } = opts;
  // The build (tsc, the workflow bundle: the longest step) runs while the database is made and seeded and
  // Temporal starts; nothing is measured during the set-up, so the steps may share the cores.
  const built = Date.now();
  const building = buildService().then(() => log(`built with npm run build in ${((Date.now() - built) / 1000).toFixed(1)} s`));
  building.catch(() => undefined);
  const databaseUrl = await freshDatabase(log);
  const { pool, backends: harnessBackends } = await harnessPool(databaseUrl);

  mkdirSync(logDir, { recursive: true });
  const temporal = await startDevServer({ cli: ensureTemporalCli(repoRoot, log), logFile: resolve(logDir, 'temporal.log') });
  onCleanup('Temporal dev server', () => temporal.stop());
  log(`Temporal dev server at ${temporal.address} (in memory)`);
  const temporalClient = createTemporalClient({ address: temporal.address, namespace: 'default', taskQueue: 'store-commerce' });
  onCleanup('Temporal client', () => temporalClient.connection.close());

  const secretsKey = randomBytes(32);
  const tls = makeTestTls(resolve(logDir, `tls-${process.pid}`));
  const common: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SECRETS_KEY: secretsKey.toString('hex'),
    // Webhook endpoints and plugin push receivers of the webhook/push scenarios listen in the harness on 127.0.0.1.
    ALLOW_LOOPBACK_TARGETS: 'true',
    // Checkout sessions hand a timer workflow to Temporal; a short life lets the checkout scenario settle between rounds.
    CHECKOUT_TTL_SECONDS: process.env.BENCH_CHECKOUT_TTL ?? '5',
    // The TLS scenario's receivers present a certificate of a CA made for this run; only the worker sends to them.
    NODE_EXTRA_CA_CERTS: tls.caFile,
  };
  // An established store: earlier orders, and planner statistics that know it (as autovacuum keeps them).
  const store = await createBenchStore(pool, 'Bench Store', KEYS_PER_STORE);
  await seedOrders(pool, store.id, EARLIER_ORDERS);
  // The service runs as production runs it: `npm run build`'s output, started by package.json's start
  // scripts with their node flags (under tsx the processes would carry its loader and the worker would
  // bundle the workflows at start: ~55 MB more RSS for an idle API, ~105 MB for an idle worker).
  await building;
  // BENCH_WORKER_NODE_ARGS / BENCH_API_NODE_ARGS: extra node flags (e.g. a heap cap, --inspect, --trace-gc) when studying
  // memory or CPU; they come after the start script's own flags, so they can override them.
  const extraArgs = (name: string) => (process.env[name] ?? '').split(' ').filter(Boolean);
  let worker: RunningProcess | undefined;
  let workerMetrics: string | undefined;
  let workers = 0;
  const benchWorker: BenchWorker = {
    pid: () => worker?.pid,
    metricsUrl: () => workerMetrics,
    stop: async () => {
      await worker?.stop();
      worker = undefined;
      workerMetrics = undefined;
    },
    start: async (env = {}) => {
      if (worker) throw new Error('a worker is running already');
      const metricsPort = await freePort();
      workers++;
      worker = spawnNode(
        workers === 1 ? 'worker' : `worker-${workers}`,
        startScriptArgs('start:worker', extraArgs('BENCH_WORKER_NODE_ARGS')),
        {
          ...common,
          METRICS_PORT: String(metricsPort),
          ...env,
        },
      );
      workerMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
      return worker;
    },
  };
  await benchWorker.start();
  const startApi = async (name: string, nodeArgs: string[] = []) => {
    const port = await freePort();
    const proc = spawnNode(name, startScriptArgs('start:api', [...nodeArgs, ...extraArgs('BENCH_API_NODE_ARGS')]), {
      ...common,
      PORT: String(port),
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, proc);
    return { url, process: proc };
  };
  // --profile: a V8 CPU profile of the API (and of each baseline), written when it stops (open it in Chrome DevTools).
  const profile = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(logDir, 'profiles')}`] : [];
  const api = await startApi('api', profile);
  const apiProcess = api.process;
  log(`API at ${api.url} (pid ${apiProcess.pid}), worker started`);

  const database = new URL(databaseUrl).pathname.slice(1);
  const temporalPids = processesMatching('temporal', 'start-dev', `--port ${temporal.address.split(':')[1]} `);
  const oursCpu: CpuGroups = {
    api: () => [apiProcess.pid],
    postgres: () => postgresBackends(database, harnessBackends),
    worker: () => (worker ? [worker.pid] : []),
    temporal: () => temporalPids,
  };
  // A profiled process (--profile, or --cpu-prof in BENCH_API_NODE_ARGS / BENCH_WORKER_NODE_ARGS) spends ~60 ms of
  // CPU a second on sampling alone, above the quiet threshold: its quiet is not waited for, or every settle ran to
  // its timeout (181 s each, seen with --cpu-prof passed through BENCH_API_NODE_ARGS).
  const profiled = (name: string) => extraArgs(name).some((a) => a.startsWith('--cpu-prof'));
  const quietCpu: CpuGroups = {
    ...oursCpu,
    ...(opts.profile || profiled('BENCH_API_NODE_ARGS') ? { api: () => [] } : {}),
    ...(profiled('BENCH_WORKER_NODE_ARGS') ? { worker: () => [] } : {}),
  };
  const settle = () => waitForDrain(pool, temporalClient.client, quietCpu, SETTLE_TIMEOUT_MS);
  const taken = () => waitForDrain(pool, temporalClient.client, oursCpu, SETTLE_TIMEOUT_MS, true);

  await provePipeline(api.url, store.keys[0]!, pool, taken, log);

  const startBaseline = async (name: string, env: Record<string, string> = {}) => {
    const basePort = await freePort();
    // Plain `node` (its own type stripping), not tsx: ours runs compiled, so neither side carries a loader.
    // --profile: the baseline's V8 profile too, beside the API's, to compare where each spends its CPU.
    const proc = spawnNode(`baseline-${name}`, [...profile, `bench/baselines/${name}.ts`], {
      ...env,
      PORT: String(basePort),
      DATABASE_URL: databaseUrl,
    });
    const url = `http://127.0.0.1:${basePort}`;
    await waitForHttp(`${url}/healthz`, proc);
    return { url, process: proc };
  };
  const baselineCpu = (proc: RunningProcess): CpuGroups => ({
    server: () => [proc.pid],
    postgres: () => postgresBackends(database, harnessBackends),
  });
  const quick = opts.quick;
  const timing = { rounds: quick ? 1 : 3, measureSec: quick ? 3 : 10, warmupSec: quick ? 1 : 3 };
  return {
    quick,
    ...timing,
    databaseUrl,
    pool,
    api,
    store,
    log,
    oursCpu,
    baselineCpu,
    settle,
    startApi,
    startBaseline,
    temporal: temporalClient.client,
    secretsKey,
    serviceEnv: common,
    worker: benchWorker,
    tls,
    where: {
      postgres: await postgresWhere(pool, databaseUrl),
      temporal: `Temporal CLI dev server (in memory, SQLite visibility) at ${temporal.address}, a child process of the bench on this host`,
    },
  };
}

/** "PostgreSQL 15.2 at 127.0.0.1:5432 (DATABASE_URL, on this host, autovacuum on)": the server version, where it runs, its autovacuum. */
async function postgresWhere(pool: pg.Pool, databaseUrl: string): Promise<string> {
  const { rows } = await pool.query<{ v: string; autovacuum: string }>(
    "select current_setting('server_version') as v, current_setting('autovacuum') as autovacuum",
  );
  const url = new URL(databaseUrl);
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
  const how = process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded, under .data/bench-pg';
  // Autovacuum is part of the regime (the soak's dead tuples): the retention job vacuums itself when it is off.
  return `PostgreSQL ${rows[0]!.v} at ${url.hostname}:${url.port || 5432} (${how}, ${local ? 'on this host, sharing its cores' : 'another host'}, autovacuum ${rows[0]!.autovacuum})`;
}

/**
 * Three connections opened now and kept open (never closed when idle): their backend pids are known, so
 * the harness's own queries (drain checks) never count as CPU of either side.
 */
async function harnessPool(databaseUrl: string): Promise<{ pool: pg.Pool; backends: Set<number> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3, idleTimeoutMillis: 0 });
  // An idle connection cut by the server (database dropped at the end) is not a failure of the run.
  pool.on('error', () => undefined);
  onCleanup('harness pool', () => pool.end());
  const clients = await Promise.all([1, 2, 3].map(() => pool.connect()));
  const pids = await Promise.all(clients.map((c) => c.query<{ pid: number }>('select pg_backend_pid() as pid')));
  for (const c of clients) c.release();
  return { pool, backends: new Set(pids.map((r) => r.rows[0]!.pid)) };
}

/** One order through the API and, when a webhook subscribes, the outbox relay: the write path works before anything is measured. */
async function provePipeline(
  apiUrl: string,
  key: string,
  pool: pg.Pool,
  taken: () => Promise<Drain>,
  log: (line: string) => void,
): Promise<void> {
  const response = await fetch(`${apiUrl}/api/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ external_id: 'bench-probe', totals: { total: 1 } }),
  });
  if (response.status !== 201) throw new Error(`probe order: HTTP ${response.status} ${await response.text()}`);
  const drain = await taken();
  if (!drain.drained) throw new Error('the worker did not take the probe order event in time; see .data/bench-logs/worker.log');
  const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from outbox');
  log(
    rows[0]!.n > 0
      ? `probe order: its event went through the outbox to Temporal in ${drain.seconds.toFixed(1)} s`
      : 'probe order: stored; no webhook endpoint subscribes, so order events stay in PostgreSQL (no Temporal work in these scenarios)',
  );
}
