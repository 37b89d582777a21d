// The Temporal worker and outbox relay alone, as `npm run start:worker` runs them (its entry, temporal/worker-main.ts, loads this).
import { loadConfig, requireResolved } from '../config/env.js';
import { createLogger } from '../observability/logger.js';
import { startMetricsPage } from '../observability/metrics-page.js';
import { createMetricsRegistry } from '../observability/metrics.js';
import { fillPool, migrate, openOrm } from '../db/orm.js';
import { prepareWorkerMetrics, temporalMetricsUrl } from './metrics.js';
import { startTracing } from '../observability/tracing.js';
import { loadTemporalTracing } from './tracing.js';
import { startWorker } from './worker.js';

// Every module is loaded once this line runs: the first part of a start (logged below).
const modulesLoadedMs = Math.round(process.uptime() * 1000);
const tracing = await startTracing(process.env, 'worker');
const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
const orm = await openOrm({ databaseUrl: config.databaseUrl, fixedPool: true, applicationName: 'store-commerce-worker' });
log.info({ modulesLoadedMs, databaseOpenMs: Math.round(process.uptime() * 1000) }, 'worker starting (ms since the process started)');
// The migrations run while the Temporal workers are made (each takes a few hundred ms at a start); the
// workers poll, and the relay reads, only once they are done.
const schemaReady = migrate(config.databaseUrl);
const registry = config.metricsPort ? createMetricsRegistry('worker') : undefined;
const observed = registry ? await prepareWorkerMetrics(registry, orm, 'worker') : undefined;
const worker = startWorker({ config, orm, log, metrics: observed, tracing: await loadTemporalTracing(), schemaReady });
// A migration that fails ends the process, as before the overlap: nothing ran meanwhile.
await schemaReady;
const page =
  registry && observed
    ? await startMetricsPage({ host: config.metricsHost, port: config.metricsPort!, registry, appendFrom: [temporalMetricsUrl(observed)] })
    : undefined;
if (page) log.info({ metrics: page.url }, 'metrics page ready');
// The rest of the pool opens while the worker runs (a fixed-size pool: db/orm.ts, fixedPool).
void fillPool(orm).catch((err: Error) => log.warn({ err }, 'could not open the database pool in full'));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await page?.close();
    await worker.stop();
    await orm.close();
    await tracing?.shutdown().catch(() => undefined);
    process.exit(0);
  });
}
