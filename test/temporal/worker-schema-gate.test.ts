// A worker started before the migrations end (temporal/worker-process.ts overlaps them with Worker.create)
// reads no table and hands nothing over until they end, and never runs when they fail.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { openOrm } from '../../db/orm.js';
import { createLogger } from '../../observability/logger.js';
import { createTemporalClient } from '../../temporal/client.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { bearer } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { createHookedStore } from '../helpers/store.js';

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let config: ResolvedConfig;
let closeTemporal: () => Promise<void>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const workers: WorkerHandle[] = [];
const log = createLogger('warn');
// A namespace of its own (made by test/global-setup.ts): this test's workers create the housekeeping Schedules
// and start webhook dispatchers, whose ids are the same in every namespace.
const NAMESPACE = 'schema-gate-test';
const TASK_QUEUE = 'schema-gate';

beforeAll(async () => {
  receiver = await startReceiver();
  db = await createIsolatedDatabase();
  config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
  }) as ResolvedConfig;
  orm = await openOrm({ databaseUrl: db.url, poolMax: 6 });
  const temporal = createTemporalClient({ address: config.temporalAddress, namespace: NAMESPACE, taskQueue: TASK_QUEUE });
  closeTemporal = () => temporal.connection.close();
  app = await buildApp({ config, orm, temporal, logger: log });
});

afterAll(async () => {
  await app?.close();
  for (const w of workers) await w.stop();
  await closeTemporal?.().catch(() => undefined);
  await orm?.close();
  await db?.drop();
  await receiver?.close();
});

const count = async (sql: string) => Number((await orm.em.fork().execute<{ n: string }[]>(sql))[0]!.n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An order of a store whose endpoint takes every event: one outbox row for the relay, one delivery. */
async function orderWaiting(externalId: string) {
  const s = await createHookedStore(orm, receiver.url());
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(s.secret),
    payload: { external_id: externalId, totals: { total: 10 } },
  });
  expect(created.statusCode).toBe(201);
  return created.json().order.id as string;
}

const delivered = (orderId: string) => receiver.received.filter((r) => r.body.includes(orderId)).length;
const waitingRows = () => count(`select count(*) as n from outbox where done_at is null`);

describe('a worker whose schema is not migrated yet', () => {
  it('hands nothing over until the migrations end, then delivers what waited', async () => {
    let migrated!: () => void;
    const schemaReady = new Promise<void>((resolve) => (migrated = resolve));
    const orderId = await orderWaiting('gate-1');
    workers.push(startWorker({ config, orm, log, schemaReady }));

    // Long enough for the Temporal workers to be made and, without the gate, for the relay to hand the row over.
    await sleep(3000);
    expect(await waitingRows()).toBeGreaterThan(0);
    expect(delivered(orderId)).toBe(0);

    migrated();
    await eventually(() => delivered(orderId) === 1, 30_000, 'the waiting order delivered');
    expect(await waitingRows()).toBe(0);
  }, 60_000);

  it('never runs when the migrations fail, and stops at once', async () => {
    await workers.pop()!.stop();
    const orderId = await orderWaiting('gate-2');
    const worker = startWorker({ config, orm, log, schemaReady: Promise.reject(new Error('migration failed')) });
    await sleep(3000);
    expect(await waitingRows()).toBeGreaterThan(0);
    expect(delivered(orderId)).toBe(0);
    const t0 = Date.now();
    await worker.stop();
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await waitingRows()).toBeGreaterThan(0);
  }, 60_000);
});
