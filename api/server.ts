// Process entry of the API alone (`npm run start:api`); several may run against one database and Temporal.
import { loadConfig, requireResolved } from '../config/env.js';
import { buildApp } from './app.js';
import { createLogger } from '../config/logger.js';
import { startTracing } from '../config/tracing.js';
import { migrate, openOrm } from '../db/orm.js';
import { createTemporalClient } from '../temporal/client.js';

const tracing = await startTracing(process.env, 'api');
const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
const orm = await openOrm({ databaseUrl: config.databaseUrl });
await migrate(config.databaseUrl);
const temporal = createTemporalClient({
  address: config.temporalAddress,
  namespace: config.temporalNamespace,
  taskQueue: config.taskQueue,
});
const app = await buildApp({ config, orm, temporal, logger: log });
await app.listen({ port: config.port, host: config.host });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close();
    await temporal.connection.close().catch(() => undefined);
    await orm.close();
    await tracing?.shutdown().catch(() => undefined);
    process.exit(0);
  });
}
