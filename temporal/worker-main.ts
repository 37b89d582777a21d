// Process entry of the Temporal worker and outbox relay alone (`npm run start:worker`).
import { loadConfig, requireResolved } from '../config/env.js';
import { createLogger } from '../config/logger.js';
import { startTracing } from '../config/tracing.js';
import { migrate, openOrm } from '../db/orm.js';
import { loadTemporalTracing } from './tracing.js';
import { startWorker } from './worker.js';

const tracing = await startTracing(process.env, 'worker');
const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
const orm = await openOrm({ databaseUrl: config.databaseUrl });
await migrate(config.databaseUrl);
const worker = startWorker({ config, orm, log, tracing: await loadTemporalTracing() });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await worker.stop();
    await orm.close();
    await tracing?.shutdown().catch(() => undefined);
    process.exit(0);
  });
}
