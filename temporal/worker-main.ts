// Process entry of the Temporal worker and outbox relay alone (`npm run start:worker`).
import { loadConfig, requireResolved } from '../config/env.js';
import { createLogger } from '../config/logger.js';
import { migrate, openOrm } from '../db/orm.js';
import { startWorker } from './worker.js';

const config = requireResolved(loadConfig());
const log = createLogger(config.logLevel);
const orm = await openOrm({ databaseUrl: config.databaseUrl });
await migrate(config.databaseUrl);
const worker = startWorker({ config, orm, log });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await worker.stop();
    await orm.close();
    process.exit(0);
  });
}
