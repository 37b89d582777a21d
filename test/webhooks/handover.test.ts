// A worker that stops hands its shard dispatchers over at once: each run sends what is in flight, gives
// its lease up and ends, so an order written while no worker runs is delivered as soon as the next worker
// polls, not after the dead run's 10 s heartbeat timeout. A database, namespace and task queue of this
// file's own, on the run's Temporal server.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { createTemporalClient } from '../../temporal/client.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, testResolver } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { orderBody } from '../orders/fixtures.js';

const queue = `handover-${randomBytes(3).toString('hex')}`;
let orm: MikroORM;
let app: FastifyInstance;
let config: ResolvedConfig;
let worker: WorkerHandle | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let temporal: ReturnType<typeof createTemporalClient>;
/** What beforeAll opened, closed in reverse order after the tests. */
const opened: (() => Promise<unknown>)[] = [];
const log = createLogger('warn');

beforeAll(async () => {
  const db = await createIsolatedDatabase();
  opened.push(() => db.drop());
  config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: queue,
    // Not the suite's namespace: the dispatchers' workflow ids are the same in every database.
    TEMPORAL_NAMESPACE: 'handover-test',
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    // The dispatcher stays running between the orders (the production default is 20 s).
    WEBHOOK_DISPATCH_IDLE_MS: '60000',
  }) as ResolvedConfig;
  orm = await openOrm({ databaseUrl: db.url, poolMax: 8 });
  opened.push(() => orm.close());
  receiver = await startReceiver();
  opened.push(() => receiver.close());
  temporal = createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace, taskQueue: queue });
  opened.push(() => temporal.connection.close().catch(() => undefined));
  app = await buildApp({ config, orm, temporal, logger: log, resolve: testResolver });
  opened.push(() => app.close());
});

afterAll(async () => {
  await worker?.stop();
  for (const close of opened.reverse()) await close();
});

const sql = <T>(query: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(query, params);

describe('a worker that stops', () => {
  it('gives its dispatcher lease up, and the next worker delivers what came meanwhile within seconds', async () => {
    const s = await createTestStore(orm);
    const { key } = await addKey(orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
    const endpoint = { url: receiver.url('/handover'), events: ['order.created'] };
    const created = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(key), payload: endpoint });
    expect(created.statusCode, created.body).toBe(201);
    const post = async () => {
      const body = orderBody();
      let r = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(key), payload: body });
      // A 503 (PostgreSQL briefly out of reach on a busy machine) asks for a retry; the same external id is idempotent.
      for (let tries = 0; r.statusCode === 503 && tries < 3; tries++)
        r = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(key), payload: body });
      expect([200, 201], r.body).toContain(r.statusCode);
      return r.json().order.id as string;
    };
    const dispatcher = workflowIds.storeWebhookDispatch(s.store.id, config.webhookDispatch.shards);
    const leaseHeld = async () =>
      (await sql<{ held: boolean }>(`select active_until > now() as held from lanes where workflow_id = ?`, [dispatcher]))[0]?.held ??
      false;

    worker = startWorker({ config, orm, log });
    const first = await post();
    await eventually(
      () => receiver.received.some((r) => r.body.includes(first)),
      120_000,
      'the first delivery (the worker bundles its workflows first)',
    );
    expect(await leaseHeld()).toBe(true);

    await worker.stop();
    worker = undefined;
    // The run ended and gave its lease up (before, it stayed held until it expired, 10 s later).
    expect(await leaseHeld()).toBe(false);

    // Written while no worker runs: the lease is free, so the write queues the dispatcher's wake-up.
    const second = await post();
    const [queued] = await sql<{ n: number }>(`select count(*)::int as n from outbox where workflow_id = ? and done_at is null`, [
      dispatcher,
    ]);
    expect(queued!.n).toBeGreaterThan(0);

    const started = Date.now();
    worker = startWorker({ config, orm, log });
    await eventually(() => receiver.received.some((r) => r.body.includes(second)), 30_000, 'the delivery after the restart');
    // Well under the 10 s heartbeat timeout a run cut off by a dead worker waits for.
    expect(Date.now() - started).toBeLessThan(8000);
    const sent = await sql<{ n: number }>(`select count(*)::int as n from webhook_deliveries where order_id in (?, ?)`, [first, second]);
    expect(sent[0]!.n).toBe(2);
    // The run the stop cut short was retried by Temporal (its second attempt sent the order), not completed:
    // completing it would have needed a workflow task, which waited on the stopped worker's sticky queue.
    const { raw } = await temporal.client.workflow.getHandle(dispatcher).describe();
    expect(raw.pendingActivities?.map((a) => ({ type: a.activityType?.name, attempt: a.attempt }))).toEqual([
      { type: 'sendShardDeliveries', attempt: 2 },
    ]);
    const history = await temporal.client.workflow.getHandle(dispatcher).fetchHistory();
    const completed = history.events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0;
    expect(completed, 'no run completed: the first is still running, the stop handed it over').toBe(0);
  }, 240_000);
});
