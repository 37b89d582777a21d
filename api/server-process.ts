// The API alone, as `npm run start:api` runs it (its entry, api/server.ts, loads this); several may run
// against one database and Temporal.
import { getCompileCacheDir } from 'node:module';
import { loadConfig, requireResolved } from '../config/env.js';
import { buildApp } from './app.js';
import { createLogger } from '../observability/logger.js';
import { startMetricsPage } from '../observability/metrics-page.js';
import { apiMetrics, createMetricsRegistry } from '../observability/metrics.js';
import { startTracing } from '../observability/tracing.js';
import { fillPool, migrate, openOrm } from '../db/orm.js';
import { createTemporalClient } from '../temporal/client.js';
import { CLOSE_TIMEOUT_MS, DRAIN_MS, drainAndClose } from './shutdown.js';

// Every module is loaded once this line runs: most of a start (logged below with where compiled code is kept).
const modulesLoadedMs = Math.round(process.uptime() * 1000);
const tracing = await startTracing(process.env, 'api');
const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
log.info({ modulesLoadedMs, compileCache: getCompileCacheDir() ?? null }, 'api starting (ms since the process started)');
const orm = await openOrm({ databaseUrl: config.databaseUrl, fixedPool: true, applicationName: 'store-commerce-api' });
await migrate(config.databaseUrl);
const temporal = createTemporalClient({
  address: config.temporalAddress,
  namespace: config.temporalNamespace,
  taskQueue: config.taskQueue,
});
const registry = config.metricsPort ? createMetricsRegistry('api') : undefined;
const app = await buildApp({ config, orm, temporal, logger: log, ...(registry ? { metrics: apiMetrics(registry) } : {}) });
await app.listen({ port: config.port, host: config.host });
// The rest of the pool opens while the API answers (a fixed-size pool: db/orm.ts, fixedPool).
void fillPool(orm).catch((err: Error) => log.warn({ err }, 'could not open the database pool in full'));
const page = registry ? await startMetricsPage({ host: config.metricsHost, port: config.metricsPort!, registry }) : undefined;
if (page) log.info({ metrics: page.url }, 'metrics page ready');

// SIGTERM (an orchestrator replacing this replica) drains first, so a proxy polling /readyz moves its
// traffic away without a failed request; SIGINT (Ctrl-C at a terminal) closes at once. A second signal
// while shutting down exits straight away.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) process.exit(1);
    stopping = true;
    const finished = await drainAndClose(app, { drainMs: signal === 'SIGTERM' ? DRAIN_MS : 0, closeTimeoutMs: CLOSE_TIMEOUT_MS });
    await page?.close();
    await temporal.connection.close().catch(() => undefined);
    await orm.close();
    await tracing?.shutdown().catch(() => undefined);
    log.info({ finished }, 'stopped');
    process.exit(finished ? 0 : 1);
  });
}
