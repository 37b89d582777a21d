import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { createTemporalClient } from '../../temporal/client.js';
import { restartablePort, startDevServer, type DevServer } from '../../dev/temporal/dev-server.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { bearer } from '../helpers/app.js';
import { createHookedStore } from '../helpers/store.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { startReceiver } from '../helpers/receiver.js';
import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';

// A Temporal server of its own with durable state, so it can be stopped and restarted mid-test.
let server: DevServer;
let port: number;
let dbFile: string;
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let worker: WorkerHandle;
let closeTemporal: () => Promise<void>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const startServer = () =>
  startDevServer({ cli: inject('temporalCli'), dbFile, port, logFile: join(inject('logDir'), 'temporal-outage.log') });

beforeAll(async () => {
  receiver = await startReceiver();
  db = await createIsolatedDatabase();
  dbFile = join(mkdtempSync(join(tmpdir(), 'sc-temporal-')), 'temporal.db');
  port = await restartablePort();
  server = await startServer();
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: 'outage-test',
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
  }) as ResolvedConfig;
  const log = createLogger('warn');
  orm = await openOrm({ databaseUrl: db.url, poolMax: 6 });
  const temporal = createTemporalClient({ address: server.address, namespace: 'default', taskQueue: 'outage-test' });
  closeTemporal = () => temporal.connection.close();
  app = await buildApp({ config, orm, temporal, logger: log });
  worker = startWorker({ config, orm, log });
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await closeTemporal?.().catch(() => undefined);
  await server?.stop();
  await orm?.close();
  await db?.drop();
  await receiver?.close();
});

/** A store with a webhook endpoint for every event kind (only subscribed events are handed to Temporal). */
const hookedStore = () => createHookedStore(orm, receiver.url());

const count = async (sql: string) => Number((await orm.em.fork().execute<{ n: string }[]>(sql))[0]!.n);

async function waitFor(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

describe('the outbox hands every committed change to Temporal exactly once', () => {
  it('accepts writes while Temporal is down and hands each one over exactly once after it returns', async () => {
    const s = await hookedStore();
    await server.stop();

    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/orders',
          headers: bearer(s.secret),
          payload: { external_id: `outage-${i}`, totals: { total: 10 + i } },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    // Patch half of them too, so more than one hand-off per order waits.
    for (const r of results.slice(0, 5)) {
      const patched = await app.inject({
        method: 'PATCH',
        url: `/api/v1/orders/${r.json().order.id}`,
        headers: bearer(s.secret),
        payload: { status: 'confirmed' },
      });
      expect(patched.statusCode).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(await count(`select count(*) as n from outbox where done_at is null`)).toBeGreaterThan(0);
    expect(await count(`select count(*) as n from order_events where dispatched_at is not null`)).toBe(0);

    server = await startServer();
    const events = await count(`select count(*) as n from order_events`);
    expect(events).toBe(10 + 5 * 2); // created × 10, then updated + confirmed × 5
    await waitFor(async () => (await count(`select count(*) as n from order_events where dispatch_count > 0`)) === events, 90_000);
    expect(await count(`select count(*) as n from outbox where done_at is null`)).toBe(0);
    expect(await count(`select count(*) as n from order_events where dispatch_count <> 1`)).toBe(0);
  }, 150_000);

  it('a relay that restarts after handing rows over does not start their workflows again', async () => {
    const s = await hookedStore();
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 'again-1', totals: { total: 1 } },
    });
    expect(created.statusCode).toBe(201);
    await waitFor(
      async () =>
        (await count(`select count(*) as n from order_events where dispatch_count > 0 and payload->>'external_id' = 'again-1'`)) === 1,
      30_000,
    );
    // Simulate a crash between "started" and "marked done": the rows come back as pending.
    await orm.em
      .fork()
      .execute(`update outbox set done_at = null, next_attempt_at = now() where args->0->>'orderId' = ?`, [created.json().order.id]);
    await waitFor(async () => (await count(`select count(*) as n from outbox where done_at is null`)) === 0, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await count(`select count(*) as n from order_events where payload->>'external_id' = 'again-1' and dispatch_count <> 1`)).toBe(0);
  }, 60_000);
});
