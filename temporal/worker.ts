import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, createOutboundActivities } from '../activities/index.js';
import { LaneWakeups } from '../activities/lane-wakeups.js';
import { PgNotifications } from '../db/notifications.js';
import { StoreOutboundBudget, TargetCircuit } from '../activities/outbound/budget.js';
import { outboundTaskQueue } from '../workflows/outbound/queue.js';
import type { ResolvedConfig } from '../config/env.js';
import { OutboxRelay } from './outbox-relay.js';
import { StatisticsKeeper } from './statistics-keeper.js';
import { ensureHousekeepingSchedules } from './schedules.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { webhookShards } from '../workflows/webhooks/definitions.js';
import { activityMetricsInterceptor, temporalRuntimeMetrics, type WorkerMetricsSetup } from './metrics.js';
import type { TemporalTracing } from './tracing.js';

const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const workflowsPath = fileURLToPath(new URL(`../workflows/index${ext}`, import.meta.url));
/** Written by `npm run build`; development bundles at start instead. */
export const prebuiltBundlePath = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));
/** The same workflows with Temporal's OpenTelemetry workflow interceptors, used only when tracing is on. */
export const prebuiltTracedBundlePath = fileURLToPath(new URL('../workflow-bundle-traced.js', import.meta.url));

let bundle: Promise<{ code: string }> | undefined;
async function workflowBundle(tracing: TemporalTracing | null | undefined) {
  const prebuilt = tracing ? prebuiltTracedBundlePath : prebuiltBundlePath;
  if (ext === '.js' && existsSync(prebuilt)) return { codePath: prebuilt };
  // Bundled once per process, even when the worker restarts after an outage.
  bundle ??= bundleWorkflowCode({
    workflowsPath,
    logger: quietBundlerLogger,
    ...(tracing ? { workflowInterceptorModules: [tracing.workflowInterceptorModule] } : {}),
  });
  return bundle;
}

const quietBundlerLogger = { info() {}, debug() {}, trace() {}, log() {}, warn: console.warn, error: console.error };

/** How the process shares its activity slots (tests make them small to prove the queues apart). */
export interface WorkerTuning {
  /** Activity slots of the internal worker: timers, expiries, housekeeping (its own task queue, TEMPORAL_TASK_QUEUE). */
  internalSlots: number;
  /** Activity slots of the outbound worker: everything that calls a tenant's receiver (`<queue>-outbound`). */
  outboundSlots: number;
  /** Outbound activities of one store (pushes, chat messages, replays) running at once in this process. */
  outboundPerStore: number;
}

/**
 * Each activity heartbeat reaches Temporal when it is made, at most one a second per run (the SDK
 * otherwise holds them back for up to 0.8 × the heartbeat timeout; ours beat every few seconds), so Temporal's last heartbeat of a
 * run on a worker that died is at most a few seconds old, and a worker's webhook dispatchers, which
 * beat on the same clock ticks (activities/lane-lease.ts), time out together.
 */
const HEARTBEAT_THROTTLE = '1 second';

/** How long a workflow task waits for the worker that has the workflow cached before another worker takes it. */
const STICKY_TIMEOUT = '2 seconds';

export const DEFAULT_WORKER_TUNING: WorkerTuning = { internalSlots: 100, outboundSlots: 100, outboundPerStore: 4 };

const sinceProcessStart = () => Math.round(process.uptime() * 1000);

export interface WorkerHandle {
  stop(): Promise<void>;
  relay: OutboxRelay;
}

/**
 * Runs the Temporal workers and the outbox relay until stopped, and makes sure the housekeeping
 * schedules exist: the internal worker (every workflow, and the activities of internal timers) on
 * TEMPORAL_TASK_QUEUE, and the outbound worker (the activities that call tenants' receivers, with each
 * store's budget) on `<queue>-outbound`, each with slots of its own. When Temporal is unreachable it
 * keeps retrying; the relay keeps rows waiting in the meantime.
 */
export function startWorker({
  config,
  orm,
  log,
  metrics: observed,
  tracing,
  tuning = DEFAULT_WORKER_TUNING,
  schemaReady = Promise.resolve(),
}: {
  config: ResolvedConfig;
  orm: MikroORM;
  log: Logger;
  /** Counters and the SDK exporter's port (METRICS_PORT set; prepareWorkerMetrics). */
  metrics?: WorkerMetricsSetup;
  /** Temporal's OpenTelemetry interceptors when tracing is on (loadTemporalTracing). */
  tracing?: TemporalTracing | null;
  tuning?: WorkerTuning;
  /**
   * Settles when the database schema is migrated: the Temporal workers are made meanwhile (the longest
   * step of a start), but nothing polls or reads a table before it resolves. Rejected, nothing ever runs.
   */
  schemaReady?: Promise<unknown>;
}): WorkerHandle {
  installRuntimeOnce(log, observed);
  webhookShards.count = config.webhookDispatch.shards;
  const metrics = observed?.metrics;
  const clientConnection = Connection.lazy({ address: config.temporalAddress });
  const client = new Client({
    connection: clientConnection,
    namespace: config.temporalNamespace,
    ...(tracing ? { interceptors: { workflow: tracing.client } } : {}),
  });
  // One LISTEN connection for the process: the relay's outbox channel and the lanes' wake-ups.
  const notifications = new PgNotifications(config.databaseUrl, (err) =>
    log.warn({ err: err.message }, 'cannot LISTEN to PostgreSQL; the relay and the lanes poll meanwhile'),
  );
  notifications.start();
  const relay = new OutboxRelay({ orm, client, taskQueue: config.taskQueue, databaseUrl: config.databaseUrl, log, metrics, notifications });
  const laneWakeups = new LaneWakeups(notifications);
  const laneRunsEnd = new AbortController();
  const circuit = new TargetCircuit();
  const outboundBudget = new StoreOutboundBudget(tuning.outboundPerStore);
  let stopping = false;
  let workers: Worker[] = [];
  // A failed migration is the caller's to report (it exits); here it only means never running.
  const migrated = schemaReady.then(
    () => true,
    () => false,
  );
  // Resolved when both workers first poll. The relay waits for it: a workflow it starts before any worker
  // polls waits on the task queue's backlog (2 s in some starts, seen in a dispatcher's history) instead
  // of being handed straight to a waiting poll.
  let firstPoll!: () => void;
  const polling = new Promise<void>((resolve) => (firstPoll = resolve));

  const loop = (async () => {
    while (!stopping) {
      try {
        const connection = await NativeConnection.connect({ address: config.temporalAddress });
        // Made while the workers are created (each is a few round trips; the workflow bundle's load is the
        // longest step of a start): a restarted worker polls, and sends what waits, sooner.
        const searchAttributes = ensureSearchAttributes(clientConnection, config.temporalNamespace);
        searchAttributes.catch(() => undefined); // awaited below; a failure then restarts the loop as before
        // Housekeeping is not worth holding the worker back for: a failure is logged and tried at the next start.
        const schedules = ensureHousekeepingSchedules(client, config.taskQueue).then(
          (ids) => log.info({ schedules: ids }, 'housekeeping schedules ready'),
          (err: Error) => log.error({ err: err.message }, 'housekeeping schedules could not be created or updated'),
        );
        const activityInterceptors =
          metrics || tracing
            ? {
                interceptors: {
                  activity: [...(tracing?.worker.activity ?? []), ...(metrics ? [activityMetricsInterceptor(metrics)] : [])],
                },
              }
            : {};
        const deps = { orm, config, laneWakeups, metrics, circuit, stopping: laneRunsEnd.signal };
        const bundle = await workflowBundle(tracing);
        // Both workers are made at once: the outbound one has no workflows and is ready long before the other.
        const made = await Promise.allSettled([
          Worker.create({
            connection,
            namespace: config.temporalNamespace,
            taskQueue: config.taskQueue,
            workflowBundle: bundle,
            // Every activity: workflows started before the outbound queue existed keep scheduling their
            // sends here (workflows/outbound/queue.ts); new ones send on the outbound queue only.
            activities: createActivities(deps),
            // Tracing first: the metrics interceptor's work then happens inside the RunActivity span.
            ...activityInterceptors,
            // Internal timers and housekeeping: short database work, never a tenant's receiver.
            maxConcurrentActivityTaskExecutions: tuning.internalSlots,
            // Each cached workflow keeps an isolate context; 500 took the worker past 1 GB in the webhook benchmark.
            maxCachedWorkflows: 100,
            // A workflow's next task waits this long on the queue of the worker that ran its last one before any
            // worker may take it (10 s by default). When that worker has stopped or died (a deploy, a crash), every
            // workflow it ran waited the full 10 s: a dispatcher whose run ended at the stop delivered 10 s late.
            stickyQueueScheduleToStartTimeout: STICKY_TIMEOUT,
            maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
            shutdownGraceTime: '5s',
            ...(tracing ? { sinks: tracing.sinks } : {}),
          }),
          Worker.create({
            connection,
            namespace: config.temporalNamespace,
            taskQueue: outboundTaskQueue(config.taskQueue),
            identity: `${process.pid}@${hostname()} outbound`,
            activities: createOutboundActivities({ ...deps, outboundBudget }),
            ...activityInterceptors,
            // Mostly waiting on the network: the slots bound how many sends run at once, each store's
            // budget (tuning.outboundPerStore) how many of them one store may hold.
            maxConcurrentActivityTaskExecutions: tuning.outboundSlots,
            maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
            shutdownGraceTime: '5s',
          }),
        ]);
        workers = made.flatMap((m) => (m.status === 'fulfilled' ? [m.value] : []));
        const notMade = made.find((m) => m.status === 'rejected');
        if (notMade) throw notMade.reason;
        await searchAttributes;
        // The schedules are not awaited: housekeeping never holds the first delivery back.
        void schedules;
        if (!(await migrated)) stopping = true;
        // Stopped while the workers were being made (npm start failing at its listener): they must not start
        // running now, or stop() would wait on them for ever.
        // A made worker holds native resources until it has run: run it to its end at once.
        if (stopping) {
          await Promise.all(workers.map((w) => w.runUntil(Promise.resolve()).catch(() => undefined)));
          await connection.close().catch(() => undefined);
          break;
        }
        log.info(
          // ms since the process started: how long a restarted worker keeps deliveries waiting (docs/operations.md).
          { taskQueue: config.taskQueue, outboundTaskQueue: outboundTaskQueue(config.taskQueue), sinceProcessStartMs: sinceProcessStart() },
          'temporal worker running (internal and outbound)',
        );
        // One stops (an error, a shutdown): the other is stopped too, and the loop makes both again.
        const running = Promise.allSettled(
          workers.map((w) =>
            w.run().finally(() => {
              for (const other of workers) if (other !== w && other.getState() === 'RUNNING') other.shutdown();
            }),
          ),
        );
        // run() has started each worker's pollers by now (its state is RUNNING).
        firstPoll();
        const ran = await running;
        await connection.close().catch(() => undefined);
        const failed = ran.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
      } catch (err) {
        // A worker made but never run (the other could not be made) holds native resources until it has run.
        for (const w of workers) if (w.getState() === 'INITIALIZED') await w.runUntil(Promise.resolve()).catch(() => undefined);
        if (!stopping) log.warn({ err: (err as Error).message }, 'temporal worker stopped; reconnecting in 2 s');
      }
      workers = [];
      if (!stopping) await new Promise((r) => setTimeout(r, 2000));
    }
  })();

  // Planner statistics where autovacuum is off (CI's and the benchmark's servers): see temporal/statistics-keeper.ts.
  const statistics = new StatisticsKeeper(orm, log);
  // Both read tables: they start once the schema is migrated (and not at all when stopped before); the
  // relay also once the workers poll, or stop() ends the wait.
  void migrated.then(async (ok) => {
    if (!ok || stopping) return;
    statistics.start();
    await polling;
    if (!stopping) relay.start();
  });

  return {
    relay,
    async stop() {
      stopping = true;
      firstPoll();
      // The workers stop polling first, then their lane runs end (in-flight sends finish, leases given
      // up): each run's workflow schedules the next run, which the next worker takes at its first poll
      // instead of after a heartbeat timeout, and which this worker no longer picks up.
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      laneRunsEnd.abort();
      await relay.stop();
      await statistics.stop();
      laneWakeups.stop();
      await loop;
      await notifications.stop();
      await clientConnection.close().catch(() => undefined);
    },
  };
}

let runtimeInstalled = false;
/** The SDK's runtime is per process and may be installed once, before any worker or connection exists. */
function installRuntimeOnce(log: Logger, observed: WorkerMetricsSetup | undefined) {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) },
      ...(observed ? { metrics: temporalRuntimeMetrics(observed) } : {}),
    },
    logger: pinoToTemporal(log),
  });
}

function pinoToTemporal(log: Logger) {
  const at = (level: 'trace' | 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) =>
    log[level]({ temporal: meta }, message);
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    log: (level: string, message: string) => log.info({ level }, message),
  };
}
