// Webhooks survive a Temporal outage: orders written while the server is down are delivered once it
// returns, each exactly once. A Temporal server, database, worker and relay of this file's own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { createTemporalClient } from '../../temporal/client.js';
import { restartablePort, startDevServer, type DevServer } from '../../dev/temporal/dev-server.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { bearer, testResolver } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

let server: DevServer;
let port: number;
let dbFile: string;
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let worker: WorkerHandle;
let closeTemporal: () => Promise<void>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const startServerOnce = () =>
  startDevServer({ cli: inject('temporalCli'), dbFile, port, logFile: join(inject('logDir'), 'temporal-webhook-outage.log') });
// Restarted on the same port and database file right after it stopped, the dev server once exited at start
// (code 1) in a full run: a second try a second later is what an operator would do.
const startServer = () =>
  startServerOnce().catch(async (err: Error) => {
    console.warn(`[outage test] ${err.message}; starting it again in 1 s`);
    await new Promise((r) => setTimeout(r, 1000));
    return startServerOnce();
  });

beforeAll(async () => {
  db = await createIsolatedDatabase();
  dbFile = join(mkdtempSync(join(tmpdir(), 'sc-temporal-wh-')), 'temporal.db');
  port = await restartablePort();
  server = await startServer();
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: 'webhook-outage-test',
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    // As in the rest of the suite: a shard's dispatcher ends 2 s after its last delivery, so each test
    // starts with none running (a running one keeps sending through PostgreSQL while Temporal is down).
    WEBHOOK_DISPATCH_IDLE_MS: '2000',
  }) as ResolvedConfig;
  const log = createLogger('warn');
  orm = await openOrm({ databaseUrl: db.url, poolMax: 6 });
  const temporal = createTemporalClient({ address: server.address, namespace: 'default', taskQueue: 'webhook-outage-test' });
  closeTemporal = () => temporal.connection.close();
  app = await buildApp({ config, orm, temporal, logger: log, resolve: testResolver });
  worker = startWorker({ config, orm, log });
  receiver = await startReceiver();
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await closeTemporal?.().catch(() => undefined);
  await server?.stop();
  await receiver?.close();
  await orm?.close();
  await db?.drop();
});

async function storeWithEndpoint(path: string) {
  const s = await createTestStore(orm);
  const { key } = await addKey(orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(key),
    payload: { url: receiver.url(path), events: ['order.created'] },
  });
  expect(created.statusCode, created.body).toBe(201);
  return { ...s, admin: key, endpointId: created.json().id as string };
}
const postOrder = (secret: string, externalId: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(secret),
    payload: { external_id: externalId, totals: { total: 10 } },
  });
const hitsOn = (path: string) => receiver.received.filter((r) => r.path === path);
const count = async (sql: string, params: unknown[] = []) => Number((await orm.em.fork().execute<{ n: string }[]>(sql, params))[0]!.n);

describe('webhooks of orders written while Temporal is down', () => {
  it('are each delivered exactly once after it returns', async () => {
    const s = await storeWithEndpoint('/outage');
    await server.stop();

    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => postOrder(s.secret, `outage-wh-${i}`)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(5).fill(201));
    const orderIds = results.map((r) => r.json().order.id as string).sort();
    await new Promise((r) => setTimeout(r, 1500));
    expect(hitsOn('/outage')).toHaveLength(0);
    expect(await count(`select count(*) as n from outbox where done_at is null`)).toBeGreaterThanOrEqual(5);

    server = await startServer();
    await eventually(() => hitsOn('/outage').length >= 5, 90_000, 'five deliveries');
    await eventually(
      async () =>
        (await count(`select count(*) as n from webhook_deliveries where store_id = ? and status = 'delivered'`, [s.store.id])) === 5,
      10_000,
      'five recorded',
    );
    await new Promise((r) => setTimeout(r, 3000));

    const hits = hitsOn('/outage');
    expect(hits).toHaveLength(5);
    expect(hits.map((h) => h.headers['x-service-event'])).toEqual(Array(5).fill('order.created'));
    expect(hits.map((h) => JSON.parse(h.body).data.order.id).sort()).toEqual(orderIds);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery'])).size).toBe(5);
    expect(await count(`select count(*) as n from webhook_deliveries where store_id = ?`, [s.store.id])).toBe(5);
    expect(await count(`select count(*) as n from outbox where done_at is null`)).toBe(0);
  }, 150_000);

  it('an endpoint deleted during the outage gets nothing of what was written before', async () => {
    const s = await storeWithEndpoint('/deleted-during-outage');
    await server.stop();
    const written = await postOrder(s.secret, 'outage-deleted-1');
    expect(written.statusCode).toBe(201);
    const removed = await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${s.endpointId}`, headers: bearer(s.admin) });
    expect(removed.statusCode).toBe(200);

    server = await startServer();
    const orderId = written.json().order.id;
    await eventually(
      async () => (await count(`select count(*) as n from order_events where order_id = ? and dispatched_at is not null`, [orderId])) === 1,
      90_000,
      'event handed over',
    );
    await new Promise((r) => setTimeout(r, 2000));
    expect(hitsOn('/deleted-during-outage')).toHaveLength(0);
    expect(await count(`select count(*) as n from webhook_deliveries where store_id = ?`, [s.store.id])).toBe(0);
  }, 150_000);
});
