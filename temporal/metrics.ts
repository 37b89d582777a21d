import type { MikroORM } from '@mikro-orm/postgresql';
import type { ActivityInterceptorsFactory, MetricsExporterConfig } from '@temporalio/worker';
import type { Registry } from 'prom-client';
import { outboxGauges, workerMetrics, type MetricsProcess, type WorkerMetrics } from '../observability/metrics.js';
import { freePort } from '../config/free-port.js';
import { outboxState } from '../services/outbox.js';
import { ApplicationFailure } from '@temporalio/common';
import { WORKER_STOPPING } from '../activities/lane-lease.js';

/** What a worker needs to keep metrics: its counters, and where the Temporal SDK serves its own. */
export interface WorkerMetricsSetup {
  metrics: WorkerMetrics;
  /** The loopback port of the SDK's Prometheus exporter, which the process's /metrics page appends. */
  temporalPort: number;
  process: MetricsProcess;
}

/** Registers the worker's families and the outbox gauges (read at scrape time), and picks the SDK exporter's internal port. */
export async function prepareWorkerMetrics(registry: Registry, orm: MikroORM, process: MetricsProcess): Promise<WorkerMetricsSetup> {
  outboxGauges(registry, () => outboxState(orm.em.fork()));
  return { metrics: workerMetrics(registry), temporalPort: await freePort(), process };
}

/** The URL of the SDK exporter's page, for the process's /metrics page to append. */
export const temporalMetricsUrl = (setup: WorkerMetricsSetup) => `http://127.0.0.1:${setup.temporalPort}/metrics`;

/**
 * The Runtime's telemetry for the SDK's own metrics (`temporal_*`), on loopback, labelled like our series,
 * named as Prometheus expects: counters end in `_total`, durations are in seconds and say so
 * (`temporal_activity_execution_latency_seconds`).
 */
export function temporalRuntimeMetrics(setup: WorkerMetricsSetup): MetricsExporterConfig {
  return {
    prometheus: {
      bindAddress: `127.0.0.1:${setup.temporalPort}`,
      useSecondsForDurations: true,
      countersTotalSuffix: true,
      unitSuffix: true,
    },
    globalTags: { process: setup.process },
  };
}

/** Times every activity execution of this worker, by activity type and outcome. */
export function activityMetricsInterceptor(metrics: WorkerMetrics): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const started = performance.now();
        let outcome = 'failed';
        try {
          const result = await next(input);
          outcome = 'completed';
          return result;
        } catch (err) {
          // A lane run cut short by this worker's stop is retried by the next worker: not a failure to alert on.
          if (err instanceof ApplicationFailure && err.type === WORKER_STOPPING) outcome = 'handed_over';
          throw err;
        } finally {
          metrics.activityDuration.observe({ activity: ctx.info.activityType, outcome }, (performance.now() - started) / 1000);
        }
      },
    },
  });
}
