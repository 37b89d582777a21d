// Chaos: the Temporal server stops during a stream of order writes. Every write is still accepted
// (the outbox holds the hand-offs); after Temporal returns, every webhook and every update push goes out
// exactly once. Reports the drain time: from the restart to the last delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Update } from '../../examples/plugin/shop.js';
import { startWorker, type WorkerHandle } from '../../temporal/worker.js';
import { createLogger } from '../../observability/logger.js';
import { bearer } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { startReceiver } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';
import { connectedPlugin, mirroredOrder } from '../connections/fixtures.js';
import { asTestApp, countByEvent, countSql, listeningApp, log, restartableTemporal, sleep, waitUntil, type ChaosApp } from './harness.js';

const ORDERS = 200;
const STREAM_MS = 10_000;
const UPDATES = 20;
const TASK_QUEUE = 'chaos-temporal-outage';

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let temporal: Awaited<ReturnType<typeof restartableTemporal>>;
let svc: ChaosApp;
let worker: WorkerHandle;
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

beforeAll(async () => {
  db = await createIsolatedDatabase();
  temporal = await restartableTemporal('outage');
  svc = await listeningApp({ databaseUrl: db.url, temporalAddress: temporal.address, taskQueue: TASK_QUEUE, logName: 'chaos-api.log' });
  worker = startWorker({ config: svc.config, orm: svc.orm, log: createLogger('warn') });
}, 180_000);

afterAll(async () => {
  await svc?.close();
  await worker?.stop();
  for (const r of receivers) await r.close();
  await temporal?.stop();
  await db?.drop();
}, 120_000);

describe('Temporal stopped during a stream of order writes', () => {
  it(`${ORDERS} orders and ${UPDATES} shipments written while Temporal is down are all accepted, then delivered exactly once`, async () => {
    // A connected shop with a push receiver, and two webhook endpoints on loopback receivers.
    const c = await connectedPlugin(asTestApp(svc));
    const pushedIds: string[] = [];
    let lastPushAt = 0;
    const applyAll = c.plugin.applyAll.bind(c.plugin);
    c.plugin.applyAll = (updates: Update[]) => {
      pushedIds.push(...updates.map((u) => u.id));
      lastPushAt = Date.now();
      return applyAll(updates);
    };
    const admin = (await addKey(svc.orm, c.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
    for (const n of [1, 2]) {
      const r = await startReceiver();
      receivers.push(r);
      const created = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(admin),
        payload: { url: r.url(`/hook-${n}`) },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    const mirrored: string[] = [];
    for (let i = 0; i < UPDATES; i++) mirrored.push(await mirroredOrder(c, `M-${i}`));
    // Let the deliveries of the mirrored orders finish before the outage.
    const before = await countSql(svc.orm, `select count(*) as n from order_events where store_id = ?`, [c.store.id]);
    await waitUntil(() => receivers.every((r) => r.received.length >= before), 120_000, 'deliveries before the outage');
    // And the store's webhook lane and the connection's push idle again: a lane whose activity is still
    // running when Temporal stops keeps working (writes wake it through PostgreSQL); this test is about
    // hand-offs that wait for Temporal.
    await waitUntil(
      async () => (await countSql(svc.orm, `select count(*) as n from lanes where active_until > now()`)) === 0,
      60_000,
      'lanes idle before the outage',
    );
    // A lane's lease can lapse on a loaded machine while its activity still runs: Temporal must show none running either.
    await waitUntil(
      async () => {
        for await (const run of svc.temporal.client.workflow.list({ query: `TaskQueue="${TASK_QUEUE}" AND ExecutionStatus="Running"` })) {
          const d = await svc.temporal.client.workflow.getHandle(run.workflowId, run.runId).describe();
          if ((d.raw.pendingActivities?.length ?? 0) > 0) return false;
        }
        return true;
      },
      60_000,
      'no lane activity running before the outage',
    );

    await temporal.stop();
    const stoppedAt = Date.now();
    const receivedAtStop = receivers.map((r) => r.received.length);
    log(`Temporal stopped; streaming ${ORDERS} orders over ${STREAM_MS / 1000} s and shipping ${UPDATES} connected orders`);

    // The stream: one POST every STREAM_MS / ORDERS ms, from a loop, and the shipments in between.
    const writer = (await addKey(svc.orm, c.store.id, { kind: 'secret' })).key;
    const answers: LightMyRequestResponse[] = [];
    const pending: Promise<void>[] = [];
    const started = Date.now();
    for (let i = 0; i < ORDERS; i++) {
      pending.push(
        svc.app
          .inject({
            method: 'POST',
            url: '/api/v1/orders',
            headers: bearer(writer),
            payload: { external_id: `stream-${i}`, number: `S-${i}`, totals: { total: 10 + i }, customer: { name: 'Stream' } },
          })
          .then((r) => void answers.push(r)),
      );
      if (i % (ORDERS / UPDATES) === 0) {
        const id = mirrored[i / (ORDERS / UPDATES)]!;
        pending.push(
          svc.app
            .inject({
              method: 'PATCH',
              url: `/api/v1/orders/${id}`,
              headers: bearer(writer),
              payload: { status: 'shipped', tracking: { number: `AWB-${i}`, courier: 'Chaos', url: 'https://track.example/x' } },
            })
            .then((r) => void answers.push(r)),
        );
      }
      await sleep(Math.max(0, started + ((i + 1) * STREAM_MS) / ORDERS - Date.now()));
    }
    await Promise.all(pending);
    const writeSeconds = (Date.now() - started) / 1000;
    const statuses = answers.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});
    log(`${answers.length} writes in ${writeSeconds.toFixed(1)} s while Temporal was down: ${JSON.stringify(statuses)}`);
    expect(answers.filter((r) => r.statusCode < 200 || r.statusCode >= 300).map((r) => r.body)).toEqual([]);
    expect(answers).toHaveLength(ORDERS + UPDATES);

    // Nothing went out while Temporal was down: the hand-offs wait in the outbox.
    await sleep(1000);
    expect(receivers.map((r) => r.received.length)).toEqual(receivedAtStop);
    const waiting = await countSql(svc.orm, `select count(*) as n from outbox where done_at is null`);
    expect(waiting).toBeGreaterThan(0);

    await temporal.restart();
    const restartedAt = Date.now();
    log(`Temporal restarted after ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s down; ${waiting} hand-offs waiting`);

    // Everything the database says happened must arrive: every event at both endpoints, every update at the plugin.
    const events = await svc.orm.em.fork().execute<{ id: string }[]>(`select id from order_events where store_id = ?`, [c.store.id]);
    const updates = await svc.orm.em
      .fork()
      .execute<{ id: string }[]>(`select id from connection_updates where connection_id = ?`, [c.connectionId]);
    expect(updates).toHaveLength(UPDATES);
    let outboxDrainedMs = -1;
    void waitUntil(
      async () => (await countSql(svc.orm, `select count(*) as n from outbox where done_at is null`)) === 0,
      240_000,
      'outbox drained',
    ).then(
      (ms) => (outboxDrainedMs = ms),
      () => undefined,
    );
    await waitUntil(
      () => receivers.every((r) => countByEvent(r.received).size === events.length) && updates.every((u) => pushedIds.includes(u.id)),
      240_000,
      'every delivery and push after the restart',
    );
    const lastDelivery = Math.max(...receivers.flatMap((r) => r.received.map((x) => x.at)), lastPushAt);
    // Anything sent twice would come now: wait a little before counting.
    await sleep(5000);

    const drainMs = lastDelivery - restartedAt;
    for (const [i, r] of receivers.entries()) {
      const counts = countByEvent(r.received);
      expect(new Set(counts.keys()), `endpoint ${i + 1} got every event`).toEqual(new Set(events.map((e) => e.id)));
      expect(
        [...counts.values()].filter((n) => n !== 1),
        `endpoint ${i + 1} got each event once`,
      ).toEqual([]);
    }
    const pushCounts = pushedIds.reduce<Record<string, number>>((m, id) => ({ ...m, [id]: (m[id] ?? 0) + 1 }), {});
    expect(Object.keys(pushCounts).sort()).toEqual(updates.map((u) => u.id).sort());
    expect(
      Object.values(pushCounts).filter((n) => n !== 1),
      'each update pushed once',
    ).toEqual([]);
    expect(c.shop.applyCount).toBe(UPDATES);
    expect(
      await countSql(svc.orm, `select count(*) as n from connection_updates where connection_id = ? and state <> 'applied'`, [
        c.connectionId,
      ]),
    ).toBe(0);
    expect(
      await countSql(svc.orm, `select count(*) as n from webhook_deliveries where store_id = ? and status <> 'delivered'`, [c.store.id]),
    ).toBe(0);
    expect(await countSql(svc.orm, `select count(*) as n from outbox where done_at is null`)).toBe(0);
    const deliveries = events.length * receivers.length;
    log(
      `drain time ${(drainMs / 1000).toFixed(1)} s (outbox empty after ${(outboxDrainedMs / 1000).toFixed(1)} s): ${deliveries} webhook deliveries (${events.length} events × ${receivers.length} endpoints) and ${UPDATES} update pushes, each exactly once`,
    );
  }, 480_000);
});
