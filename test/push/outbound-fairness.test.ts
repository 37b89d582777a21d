// No tenant's receivers delay another store or an internal timer: the activities that call receivers run
// on their own task queue (`<queue>-outbound`) with slots of their own and a budget per store, and push
// devices that give no answer are skipped while they cool down. A database, worker (with few slots, so a
// flood would fill them) and task queue of this file's own, on the run's Temporal server.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { REPLAY_BUDGET } from '../../services/webhooks/deliveries.js';
import { createTemporalClient } from '../../temporal/client.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { workflowIds } from '../../workflows/catalog.js';
import { outboundTaskQueue } from '../../workflows/outbound/queue.js';
import { addProduct, api } from '../catalog/fixtures.js';
import { PageClient } from '../dashboard/client.js';
import { bearer, randomLoopbackIp, testResolver, type TestApp } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';
import { orderBody, ordersApi } from '../orders/fixtures.js';
import { subscriberKeys } from './push-service.js';

const queue = `outbound-fairness-${randomBytes(3).toString('hex')}`;
// Few slots, so that a flood of hanging sends would fill them if they were shared or unbudgeted.
const TUNING = { internalSlots: 4, outboundSlots: 6, outboundPerStore: 2 };

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let t: TestApp;
let worker: WorkerHandle;
let receiver: Awaited<ReturnType<typeof startHangingReceiver>>;

/** A loopback push service and webhook receiver: paths under /hang/ never get an answer; others get 201 at once. */
async function startHangingReceiver() {
  const answered: { path: string; at: number }[] = [];
  const hanging: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/hang/')) return void hanging.push(req.url);
      answered.push({ path: req.url ?? '', at: Date.now() });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    answered,
    /** Requests that got no answer (and never will), under this path prefix. */
    hangingOn: (prefix: string) => hanging.filter((p) => p.startsWith(prefix)).length,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

beforeAll(async () => {
  db = await createIsolatedDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: queue,
    // Not the suite's namespace: this worker would take over its housekeeping schedules (with its own task queue).
    TEMPORAL_NAMESPACE: 'outbound-fairness-test',
    SECRETS_KEY: inject('secretsKey'),
    ALLOW_LOOPBACK_TARGETS: 'true',
    PUBLIC_URL: 'http://127.0.0.1:3999',
    // The production default: a receiver that hangs holds its send this long.
    WEBHOOK_TIMEOUT_MS: '8000',
    CHECKOUT_TTL_SECONDS: '2',
  }) as ResolvedConfig;
  const log = createLogger('warn');
  const orm = await openOrm({ databaseUrl: db.url, poolMax: 8 });
  const temporal = createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace, taskQueue: queue });
  const app = await buildApp({ config, orm, temporal, logger: log, resolve: testResolver });
  await app.ready();
  const ip = randomLoopbackIp();
  t = {
    app,
    orm,
    config,
    temporal,
    request: (options) => app.inject({ remoteAddress: ip, ...options }),
    async close() {
      await app.close();
      await temporal.connection.close().catch(() => undefined);
      await orm.close();
    },
  };
  worker = startWorker({ config, orm, log, tuning: TUNING });
  receiver = await startHangingReceiver();
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
  await db?.drop();
});

const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(query, params);

/** A signed-in owner's store with a secret key, and `devices` push subscriptions at these paths. */
async function storeWithDevices(paths: string[]) {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore();
  const [owner] = await sql<{ owner_id: string }>(`select owner_id from owner_stores where store_id = ?`, [storeId]);
  for (const path of paths) {
    const keys = subscriberKeys();
    await sql(`insert into push_subscriptions (id, store_id, owner_id, endpoint, p256dh, auth) values (gen_random_uuid(), ?, ?, ?, ?, ?)`, [
      storeId,
      owner!.owner_id,
      receiver.url(path),
      keys.p256dh,
      keys.authText,
    ]);
  }
  const { key } = await addKey(t.orm, storeId, {
    kind: 'secret',
    scopes: ['orders:read', 'orders:write', 'products:read', 'webhooks:write', 'checkout:write'],
  });
  return { c, storeId, key, orders: ordersApi(t, key) };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const historyOf = async (workflowId: string) => (await t.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
/** Each activity of a history: its type, the task queue it was scheduled on, and the identity of the worker that ran it. */
function activitiesOf(events: HistoryEvent[]) {
  const scheduled = new Map<string, { type: string; queue: string; identity?: string }>();
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { type: s.activityType?.name ?? '', queue: s.taskQueue?.name ?? '' });
    const started = e.activityTaskStartedEventAttributes;
    if (started) scheduled.get(String(started.scheduledEventId))!.identity = started.identity ?? '';
  }
  return [...scheduled.values()];
}

describe('untrusted outbound work runs apart from internal timers, within each store’s budget', () => {
  it('twenty push devices that never answer, on a store sending a burst of orders, delay neither another store’s push nor a checkout expiry', async () => {
    const noisy = await storeWithDevices(Array.from({ length: 20 }, (_, i) => `/hang/${i}`));
    const burst = await Promise.all(Array.from({ length: 30 }, () => noisy.orders.post(orderBody())));
    for (const r of burst) expect(r.statusCode).toBe(201);
    // The flood is under way: the noisy store's devices hold their connections open.
    await eventually(() => receiver.hangingOn('/hang/') >= 20, 30_000, 'the noisy store’s pushes hanging');

    const quiet = await storeWithDevices(['/ok/quiet']);
    const product = await addProduct(t, quiet.storeId);
    const checkout = await api(t, quiet.key).checkout([{ product_id: product.id, quantity: 1 }]);
    expect(checkout.statusCode, checkout.body).toBe(201);
    const expiresAt = Date.parse(checkout.json().expires_at as string);
    const created = await quiet.orders.post(orderBody());
    expect(created.statusCode).toBe(201);
    const answered = Date.now();
    const quietOrderId = created.json().order.id as string;

    // Unbudgeted on shared slots, the quiet push would wait behind 30 sends of 4 s (the device timeout) on 6 slots (about 20 s).
    await eventually(() => receiver.answered.some((r) => r.path === '/ok/quiet'), 30_000, 'the quiet store’s push');
    const pushDelay = receiver.answered.find((r) => r.path === '/ok/quiet')!.at - answered;
    const [session] = await sql<{ id: string }>(`select id from checkout_sessions where store_id = ?`, [quiet.storeId]);
    await eventually(
      async () =>
        (await sql<{ status: string }>(`select status from checkout_sessions where id = ?`, [session!.id]))[0]!.status === 'expired',
      30_000,
      'the checkout session expired',
    );
    const expiredLate = Date.now() - expiresAt;
    console.log(`quiet store's push ${pushDelay} ms after its order's 201; checkout session expired ${expiredLate} ms after expires_at`);
    expect(pushDelay).toBeLessThan(8000);
    expect(expiredLate).toBeLessThan(8000);

    // The noisy store never held more than its budget, and its devices were skipped once they gave no answer.
    const noisyIds = burst.map((r) => r.json().order.id as string);
    const done = () =>
      sql<{ status: string; detail: string }>(
        `select status, detail from order_messages where order_id = any(?::uuid[]) and channel = 'push'`,
        [`{${noisyIds.join(',')}}`],
      );
    await eventually(
      async () => (await done()).filter((m) => m.status !== 'sending').length === noisyIds.length,
      120_000,
      'all noisy pushes finished',
    );
    const details = (await done()).map((m) => m.detail);
    expect(details.every((d) => d.startsWith('delivered to 0 of 20 device(s)'))).toBe(true);
    expect(details.filter((d) => d.includes('gave no answer lately')).length).toBeGreaterThan(noisyIds.length / 2);

    // Where each ran: the push on the outbound queue by the outbound worker, the expiry on the internal one.
    const push = activitiesOf(await historyOf(workflowIds.orderPush(quietOrderId)));
    expect(push).toEqual([{ type: 'sendOrderPush', queue: outboundTaskQueue(queue), identity: expect.stringMatching(/ outbound$/) }]);
    const [expiry] = await sql<{ workflow_id: string }>(
      `select workflow_id from outbox where workflow_type = 'checkoutExpiryWorkflow' and workflow_id like ?`,
      [`checkout-expiry/${quiet.storeId}/%`],
    );
    const timers = activitiesOf(await historyOf(expiry!.workflow_id));
    expect(timers.length).toBeGreaterThan(0);
    for (const a of timers) {
      expect(a.queue).toBe(queue);
      expect(a.identity).not.toMatch(/ outbound$/);
    }
  }, 240_000);

  it('“Send again” clicked in a loop is refused past the store’s budget, and another store’s send-again still goes out at once', async () => {
    const looping = await storeWithDevices([]);
    const other = await storeWithDevices([]);
    const endpoint = async (s: typeof looping, path: string) => {
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(s.key),
        payload: { url: receiver.url(path), events: ['order.created'] },
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    await endpoint(looping, '/hang/hook');
    await endpoint(other, '/ok/hook');
    const deliveryOf = async (s: typeof looping) => {
      expect((await s.orders.post(orderBody())).statusCode).toBe(201);
      await eventually(
        async () => (await sql(`select 1 from webhook_deliveries where store_id = ?`, [s.storeId])).length > 0,
        30_000,
        'a delivery',
      );
      return (await sql<{ id: string }>(`select id from webhook_deliveries where store_id = ? limit 1`, [s.storeId]))[0]!.id;
    };
    const [loopingDelivery, otherDelivery] = await Promise.all([deliveryOf(looping), deliveryOf(other)]);

    const page = (s: typeof looping) => `/dashboard/stores/${s.storeId}/webhooks`;
    const sendAgain = (s: typeof looping, id: string) => s.c.post(`${page(s)}/deliveries/${id}/replay`, {}, { from: page(s) });
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof sendAgain>> | undefined;
    for (let i = 0; i < REPLAY_BUDGET.perStore + 8; i++) {
      const res = await sendAgain(looping, loopingDelivery);
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
    }
    expect(statuses.slice(0, REPLAY_BUDGET.perStore)).toEqual(Array(REPLAY_BUDGET.perStore).fill(303));
    expect(statuses.slice(REPLAY_BUDGET.perStore)).toEqual(Array(8).fill(429));
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused!.body).toContain('Sent again too often');
    const replays = await sql<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where store_id = ? and replay_of is not null`,
      [looping.storeId],
    );
    expect(replays[0]!.n).toBe(REPLAY_BUDGET.perStore);

    // The looping store's replays hang on its receiver; the other store's replay is not held behind them.
    await eventually(() => receiver.hangingOn('/hang/hook') >= 1, 20_000, 'the looping store’s replays hanging');
    const before = receiver.answered.filter((r) => r.path === '/ok/hook').length;
    const clicked = Date.now();
    expect((await sendAgain(other, otherDelivery)).statusCode).toBe(303);
    await eventually(() => receiver.answered.filter((r) => r.path === '/ok/hook').length > before, 30_000, 'the other store’s replay');
    const replayDelay = receiver.answered.filter((r) => r.path === '/ok/hook').at(-1)!.at - clicked;
    console.log(`other store's send-again arrived ${replayDelay} ms after its click`);
    expect(replayDelay).toBeLessThan(8000);
  }, 180_000);
});
