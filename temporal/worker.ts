import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from '../activities/index.js';
import { LaneWakeups } from '../activities/lane-wakeups.js';
import type { ResolvedConfig } from '../config/env.js';
import { OutboxRelay } from './outbox-relay.js';
import { ensureHousekeepingSchedules } from './schedules.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { webhookShards } from '../workflows/definitions.js';
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

export interface WorkerHandle {
  stop(): Promise<void>;
  relay: OutboxRelay;
}

/**
 * Runs the Temporal worker and the outbox relay until stopped, and makes sure the housekeeping
 * schedules exist. When Temporal is unreachable it keeps retrying; the relay keeps rows waiting in the
 * meantime.
 */
export function startWorker({
  config,
  orm,
  log,
  metrics: observed,
  tracing,
}: {
  config: ResolvedConfig;
  orm: MikroORM;
  log: Logger;
  /** Counters and the SDK exporter's port (METRICS_PORT set; prepareWorkerMetrics). */
  metrics?: WorkerMetricsSetup;
  /** Temporal's OpenTelemetry interceptors when tracing is on (loadTemporalTracing). */
  tracing?: TemporalTracing | null;
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
  const relay = new OutboxRelay({ orm, client, taskQueue: config.taskQueue, databaseUrl: config.databaseUrl, log, metrics });
  const laneWakeups = new LaneWakeups(config.databaseUrl, log);
  laneWakeups.start();
  let stopping = false;
  let worker: Worker | undefined;

  const loop = (async () => {
    while (!stopping) {
      try {
        const connection = await NativeConnection.connect({ address: config.temporalAddress });
        await ensureSearchAttributes(clientConnection, config.temporalNamespace);
        // Housekeeping is not worth holding the worker back for: a failure is logged and tried at the next start.
        await ensureHousekeepingSchedules(client, config.taskQueue).then(
          (ids) => log.info({ schedules: ids }, 'housekeeping schedules ready'),
          (err: Error) => log.error({ err: err.message }, 'housekeeping schedules could not be created or updated'),
        );
        worker = await Worker.create({
          connection,
          namespace: config.temporalNamespace,
          taskQueue: config.taskQueue,
          workflowBundle: await workflowBundle(tracing),
          activities: createActivities({ orm, config, laneWakeups, metrics }),
          // Tracing first: the metrics interceptor's work then happens inside the RunActivity span.
          ...(metrics || tracing
            ? {
                interceptors: {
                  activity: [...(tracing?.worker.activity ?? []), ...(metrics ? [activityMetricsInterceptor(metrics)] : [])],
                },
              }
            : {}),
          // Webhooks take one slot per shard dispatcher (WEBHOOK_SHARDS), whatever their receivers do;
          // the rest is short activities, old per-store lanes still running, and connection pushes.
          maxConcurrentActivityTaskExecutions: 100,
          // Each cached workflow keeps an isolate context; 500 took the worker past 1 GB in the webhook benchmark.
          maxCachedWorkflows: 100,
          shutdownGraceTime: '5s',
          ...(tracing ? { sinks: tracing.sinks } : {}),
        });
        // Stopped while the worker was being made (npm start failing at its listener): it must not start
        // running now, or stop() would wait on it for ever.
        // A made worker holds native resources until it has run: run it to its end at once.
        if (stopping) {
          await worker.runUntil(Promise.resolve()).catch(() => undefined);
          await connection.close().catch(() => undefined);
          break;
        }
        log.info({ taskQueue: config.taskQueue }, 'temporal worker running');
        await worker.run();
        await connection.close().catch(() => undefined);
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'temporal worker stopped; reconnecting in 2 s');
      }
      worker = undefined;
      if (!stopping) await new Promise((r) => setTimeout(r, 2000));
    }
  })();

  relay.start();

  return {
    relay,
    async stop() {
      stopping = true;
      await relay.stop();
      await laneWakeups.stop();
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await loop;
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
