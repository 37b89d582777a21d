// A worker that stops hands a connection's running update push over, as it does the webhook dispatchers
// (test/webhooks/handover.test.ts): the run records its push, gives its lease up and fails with the
// retryable WorkerStopping, so Temporal retries the same activity on the next worker that polls. A run
// that returned instead had its workflow schedule the next one in a workflow task bound to the stopped
// worker's sticky queue (2 s). A database, namespace and task queue of this file's own.
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
import { UPDATE_PUSH_LANE } from '../../activities/connections/update-push-lane.js';
import { workflowIds } from '../../workflows/catalog.js';
import { freePort } from '../../config/free-port.js';
import { bearer, testResolver, type TestApp } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually } from '../helpers/receiver.js';
import { connectedPlugin, mirroredOrder } from './fixtures.js';

const queue = `push-handover-${randomBytes(3).toString('hex')}`;
let orm: MikroORM;
let app: FastifyInstance;
let baseUrl: string;
let config: ResolvedConfig;
let worker: WorkerHandle | undefined;
let temporal: ReturnType<typeof createTemporalClient>;
/** What beforeAll opened, closed in reverse order after the tests. */
const opened: (() => Promise<unknown>)[] = [];
const log = createLogger('warn');
const lingerMs = UPDATE_PUSH_LANE.lingerMs;

beforeAll(async () => {
  const db = await createIsolatedDatabase();
  opened.push(() => db.drop());
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  config = loadConfig({
    DATABASE_URL: db.url,
    PUBLIC_URL: baseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: queue,
    // Not the suite's namespace: one namespace serves one deployment (its housekeeping schedules).
    TEMPORAL_NAMESPACE: 'push-handover-test',
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
  }) as ResolvedConfig;
  orm = await openOrm({ databaseUrl: db.url, poolMax: 8 });
  opened.push(() => orm.close());
  temporal = createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace, taskQueue: queue });
  opened.push(() => temporal.connection.close().catch(() => undefined));
  app = await buildApp({ config, orm, temporal, logger: log, resolve: testResolver });
  opened.push(() => app.close());
  await app.listen({ port, host: '127.0.0.1' });
  // The run stays running between the two updates (the worker runs in this process): the stop, not the
  // end of its linger, is what ends it.
  UPDATE_PUSH_LANE.lingerMs = 120_000;
  opened.push(async () => (UPDATE_PUSH_LANE.lingerMs = lingerMs));
});

afterAll(async () => {
  await worker?.stop();
  for (const close of opened.reverse()) await close();
});

const sql = <T>(query: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(query, params);

describe("a worker that stops, during a connection's update push", () => {
  it('hands the run over: the next worker pushes what came meanwhile, as a retry of the same run', async () => {
    const c = await connectedPlugin({ orm, baseUrl } as TestApp & { baseUrl: string });
    const first = await mirroredOrder(c, 'H-1');
    const second = await mirroredOrder(c, 'H-2');
    const ship = async (id: string) => {
      const r = await app.inject({
        method: 'PATCH',
        url: `/api/v1/orders/${id}`,
        headers: bearer(c.secret),
        payload: { status: 'shipped' },
      });
      expect(r.statusCode, r.body).toBe(200);
    };
    const lane = workflowIds.connectionPush(c.connectionId);
    const leaseHeld = async () =>
      (await sql<{ held: boolean }>(`select active_until > now() as held from lanes where workflow_id = ?`, [lane]))[0]?.held ?? false;

    worker = startWorker({ config, orm, log });
    await ship(first);
    await eventually(() => c.shop.applyCount === 1, 120_000, 'the first push (the worker bundles its workflows first)');
    expect(await leaseHeld()).toBe(true);

    await worker.stop();
    worker = undefined;
    expect(await leaseHeld(), 'the run gave its lease up').toBe(false);

    // Written while no worker runs: the lease is free, so the write queues the push workflow's wake-up.
    await ship(second);
    const [queued] = await sql<{ n: number }>(`select count(*)::int as n from outbox where workflow_id = ? and done_at is null`, [lane]);
    expect(queued!.n).toBeGreaterThan(0);

    const started = Date.now();
    worker = startWorker({ config, orm, log });
    await eventually(() => c.shop.applyCount === 2, 30_000, 'the push after the restart');
    // Well under the run's 30 s heartbeat timeout, which a run cut off by a dead worker waits for.
    expect(Date.now() - started).toBeLessThan(8000);
    expect(c.shop.orders.get('H-2')).toMatchObject({ status: 'shipped' });

    // The run the stop cut short was retried by Temporal (its second attempt pushed the update), not
    // completed: completing it needed a workflow task, which waited on the stopped worker's sticky queue.
    const handle = temporal.client.workflow.getHandle(lane);
    const { raw } = await handle.describe();
    expect(raw.pendingActivities?.map((a) => ({ type: a.activityType?.name, attempt: a.attempt }))).toEqual([
      { type: 'pushDueUpdates', attempt: 2 },
    ]);
    const history = await handle.fetchHistory();
    const completed = history.events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0;
    expect(completed, 'no run completed: the first is still running, the stop handed it over').toBe(0);
  }, 240_000);
});
