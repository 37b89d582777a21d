// Chaos: the worker process is SIGKILLed while webhook deliveries and update pushes to slow receivers
// are in flight, and a new worker process takes over. Nothing is lost, no update is applied or
// acknowledged twice, and no webhook is sent twice for one event and endpoint. A delivery cut by the
// kill after it was claimed stays 'sending' and is never re-sent (the spec's one attempt, never retried).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Update } from '../../examples/plugin/shop.js';
import { bearer } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { startReceiver } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';
import { connectedPlugin, mirroredOrder } from '../connections/fixtures.js';
import {
  asTestApp,
  countByEvent,
  countSql,
  listeningApp,
  log,
  restartableTemporal,
  sleep,
  stopChild,
  waitUntil,
  workerProcess,
  type ChaosApp,
} from './harness.js';

const SLOW_MS = 300;
const PUSH_SLOW_MS = 1500;
const NEW_ORDERS = 60;
const SHIPMENTS = 30;
const TASK_QUEUE = 'chaos-worker-kill';

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let temporal: Awaited<ReturnType<typeof restartableTemporal>>;
let svc: ChaosApp;
let worker: ReturnType<typeof workerProcess> | undefined;
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

const startWorkerProcess = (n: number) =>
  workerProcess({ databaseUrl: db.url, temporalAddress: temporal.address, taskQueue: TASK_QUEUE, logName: `chaos-worker-${n}.log` });

beforeAll(async () => {
  db = await createIsolatedDatabase();
  temporal = await restartableTemporal('worker-kill');
  svc = await listeningApp({ databaseUrl: db.url, temporalAddress: temporal.address, taskQueue: TASK_QUEUE, logName: 'chaos-api.log' });
  worker = startWorkerProcess(1);
}, 180_000);

afterAll(async () => {
  if (worker) await stopChild(worker.child);
  await svc?.close();
  for (const r of receivers) await r.close();
  await temporal?.stop();
  await db?.drop();
}, 120_000);

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
  attempted_at: Date | null;
  error: string | null;
}

describe('the worker killed in the middle of pushes and deliveries', () => {
  it('loses nothing, applies and acknowledges each update once, and sends no webhook twice', async () => {
    // The plugin's push receiver answers after 300 ms, like the webhook receivers, so work is in flight when the kill comes.
    const c = await connectedPlugin(asTestApp(svc), { push: false });
    const pushed: string[] = [];
    const applyAll = c.plugin.applyAll.bind(c.plugin);
    c.plugin.applyAll = (updates: Update[]) => {
      pushed.push(...updates.map((u) => u.id));
      return applyAll(updates);
    };
    let pushesInFlight = 0;
    const pushReceiver = await startReceiver(async (req, res) => {
      pushesInFlight++;
      // Slower than the webhooks, so the kill can land while a push is waiting for its reply.
      await sleep(PUSH_SLOW_MS);
      pushesInFlight--;
      const reply = await c.plugin.receivePush(req.headers, req.body);
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
    receivers.push(pushReceiver);
    expect((await c.plugin.heartbeat(pushReceiver.url('/push'))).status).toBe(200);
    const admin = (await addKey(svc.orm, c.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
    const hooks: Awaited<ReturnType<typeof startReceiver>>[] = [];
    for (const n of [1, 2]) {
      const r = await startReceiver(async (_req, res) => {
        await sleep(SLOW_MS);
        res.end('ok');
      });
      receivers.push(r);
      hooks.push(r);
      expect(
        (await svc.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(admin), payload: { url: r.url(`/hook-${n}`) } }))
          .statusCode,
      ).toBe(201);
    }
    const mirrored: string[] = [];
    for (let i = 0; i < SHIPMENTS; i++) mirrored.push(await mirroredOrder(c, `K-${i}`));
    const settledBefore = await countSql(svc.orm, `select count(*) as n from order_events where store_id = ?`, [c.store.id]);
    await waitUntil(() => hooks.every((r) => r.received.length >= settledBefore), 180_000, 'deliveries of the mirrored orders');

    // The burst: new orders and shipments of the mirrored ones (updates to push), all at once.
    const writer = (await addKey(svc.orm, c.store.id, { kind: 'secret' })).key;
    const atBurst = hooks.reduce((n, r) => n + r.received.length, 0);
    const writes = await Promise.all([
      ...Array.from({ length: NEW_ORDERS }, (_, i) =>
        svc.app.inject({
          method: 'POST',
          url: '/api/v1/orders',
          headers: bearer(writer),
          payload: { external_id: `burst-${i}`, totals: { total: 5 + i } },
        }),
      ),
      ...mirrored.map((id, i) =>
        svc.app.inject({
          method: 'PATCH',
          url: `/api/v1/orders/${id}`,
          headers: bearer(writer),
          payload: { status: 'shipped', tracking: { number: `KILL-${i}` } },
        }),
      ),
    ]);
    expect(writes.filter((r) => r.statusCode >= 300).map((r) => r.body)).toEqual([]);

    // Kill while deliveries and pushes are in flight.
    await waitUntil(() => pushesInFlight > 0, 120_000, 'a push under way');
    worker!.child.kill('SIGKILL');
    await worker!.exited;
    const killedAt = new Date();
    const inFlight = await countSql(svc.orm, `select count(*) as n from webhook_deliveries where store_id = ? and status = 'sending'`, [
      c.store.id,
    ]);
    log(
      `worker SIGKILLed with ${inFlight} webhook deliveries claimed and in flight, ${hooks.reduce((n, r) => n + r.received.length, 0) - atBurst} of the burst's delivered, a push of ${pushReceiver.received.length ? (JSON.parse(pushReceiver.received.at(-1)!.body).updates as unknown[]).length : 0} update(s) waiting for its reply`,
    );
    await sleep(1000);
    const restartedAt = Date.now();
    worker = startWorkerProcess(2);

    // Nothing lost: every event planned for both endpoints; nothing left pending; every update applied.
    const events = await svc.orm.em.fork().execute<{ id: string }[]>(`select id from order_events where store_id = ?`, [c.store.id]);
    const updates = await svc.orm.em
      .fork()
      .execute<{ id: string }[]>(`select id from connection_updates where connection_id = ?`, [c.connectionId]);
    expect(updates).toHaveLength(SHIPMENTS);
    const state = async () => ({
      deliveries: await svc.orm.em
        .fork()
        .execute(`select status, count(*)::int as n from webhook_deliveries where store_id = ? group by status`, [c.store.id]),
      updates: await svc.orm.em
        .fork()
        .execute(
          `select state, push_attempts, count(*)::int as n from connection_updates where connection_id = ? group by state, push_attempts`,
          [c.connectionId],
        ),
      stuck: await svc.orm.em
        .fork()
        .execute(`select id, status, error, attempted_at from webhook_deliveries where store_id = ? and status in ('pending', 'sending')`, [
          c.store.id,
        ]),
      outbox: await countSql(svc.orm, `select count(*) as n from outbox where done_at is null`),
      events: events.length,
    });
    const settleMs = await waitUntil(
      async () =>
        (await countSql(svc.orm, `select count(*) as n from webhook_deliveries where store_id = ?`, [c.store.id])) ===
          events.length * hooks.length &&
        (await countSql(svc.orm, `select count(*) as n from webhook_deliveries where store_id = ? and status = 'pending'`, [
          c.store.id,
        ])) === 0 &&
        (await countSql(svc.orm, `select count(*) as n from connection_updates where connection_id = ? and state <> 'applied'`, [
          c.connectionId,
        ])) === 0 &&
        (await countSql(svc.orm, `select count(*) as n from outbox where done_at is null`)) === 0,
      300_000,
      'everything settled after the new worker started',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await state())}`);
    });
    await sleep(3000);

    const rows = await svc.orm.em
      .fork()
      .execute<DeliveryRow[]>(`select id, event_id, endpoint_id, status, attempted_at, error from webhook_deliveries where store_id = ?`, [
        c.store.id,
      ]);
    const byStatus = rows.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
    // One row per event and endpoint, and no receiver got any event twice.
    expect(new Set(rows.map((r) => `${r.event_id}/${r.endpoint_id}`)).size).toBe(events.length * hooks.length);
    for (const [i, r] of hooks.entries())
      expect(
        [...countByEvent(r.received).values()].filter((n) => n > 1),
        `endpoint ${i + 1}: no event twice`,
      ).toEqual([]);
    // Each delivered row reached its receiver exactly once, under its own delivery id.
    const receivedIds = hooks.flatMap((r) => r.received.map((x) => String(x.headers['x-service-delivery'])));
    expect(new Set(receivedIds).size).toBe(receivedIds.length);
    for (const row of rows.filter((r) => r.status === 'delivered'))
      expect(
        receivedIds.filter((id) => id === row.id),
        `delivery ${row.id}`,
      ).toHaveLength(1);
    // Cut by the kill: claimed before it, never retried (at most once); the receiver may or may not have it.
    // They stay 'sending' until the worker's sweep settles them as failed (after 3 minutes).
    const cut = rows.filter((r) => r.status === 'sending' || (r.status === 'failed' && /cut off/.test(r.error ?? '')));
    const failedOtherwise = rows.filter((r) => r.status === 'failed' && !cut.includes(r));
    for (const row of cut) expect(new Date(row.attempted_at!).getTime()).toBeLessThanOrEqual(killedAt.getTime());
    const cutButReceived = cut.filter((row) => receivedIds.includes(row.id)).length;
    expect(cut.length).toBeLessThanOrEqual(inFlight);

    // Updates: each applied once at the shop, acknowledged once (state applied, never waiting again).
    expect(c.shop.applyCount).toBe(SHIPMENTS);
    const pushCounts = pushed.reduce<Record<string, number>>((m, id) => ({ ...m, [id]: (m[id] ?? 0) + 1 }), {});
    expect(Object.keys(pushCounts).sort()).toEqual(updates.map((u) => u.id).sort());
    const repushed = Object.values(pushCounts).filter((n) => n > 1).length;
    expect((await c.plugin.client.pullUpdates(200)).body.updates).toEqual([]);

    log(
      `settled ${(settleMs / 1000).toFixed(1)} s after the new worker started (${((Date.now() - restartedAt) / 1000).toFixed(1)} s incl. checks): ` +
        `deliveries ${JSON.stringify(byStatus)}; ${cut.length} cut by the kill (${cutButReceived} of them had reached the receiver), never re-sent; ` +
        `${failedOtherwise.length} failed otherwise (${[...new Set(failedOtherwise.map((r) => r.error))].join('; ')}); ` +
        `${SHIPMENTS} updates applied once each, ${repushed} pushed again after the kill and ignored by the idempotent plugin`,
    );
  }, 600_000);
});
