// Process entry of the API alone (`npm run start:api`); several may run against one database and Temporal.
import { loadConfig, requireResolved } from '../config/env.js';
import { buildApp } from './app.js';
import { createLogger } from '../config/logger.js';
import { startMetricsPage } from '../config/metrics-page.js';
import { apiMetrics, createMetricsRegistry } from '../config/metrics.js';
import { migrate, openOrm } from '../db/orm.js';
import { createTemporalClient } from '../temporal/client.js';

const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
const orm = await openOrm({ databaseUrl: config.databaseUrl });
await migrate(config.databaseUrl);
const temporal = createTemporalClient({
  address: config.temporalAddress,
  namespace: config.temporalNamespace,
  taskQueue: config.taskQueue,
});
const registry = config.metricsPort ? createMetricsRegistry('api') : undefined;
const app = await buildApp({ config, orm, temporal, logger: log, ...(registry ? { metrics: apiMetrics(registry) } : {}) });
await app.listen({ port: config.port, host: config.host });
const page = registry ? await startMetricsPage({ port: config.metricsPort!, registry }) : undefined;
if (page) log.info({ metrics: `http://127.0.0.1:${page.port}/metrics` }, 'metrics page ready');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await page?.close();
    await app.close();
    await temporal.connection.close().catch(() => undefined);
    await orm.close();
    process.exit(0);
  });
}
