// The webhook dispatcher of a store's shard (webhook-dispatch/<shard>-of-<n>, workflowIds.storeWebhookDispatch):
// how order writes wake it, how it goes idle without losing a wake-up, how an operator finds the attempt
// in Temporal, and that a store whose endpoints hang cannot slow another store down.
import { defaultPayloadConverter } from '@temporalio/common';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH } from '../../activities/webhooks/lane.js';
import type { LaneOutcome } from '../../workflows/webhooks/definitions.js';
import { releaseLane } from '../../db/lanes.js';
import { storeEventsWaiting } from '../../services/webhooks/lane.js';
import { webhookShard, webhookShards } from '../../workflows/webhooks/definitions.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sql = <T>(text: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(text, params);
const laneWakeUps = async (storeId: string) =>
  (await sql<{ n: number }>(`select count(*)::int as n from outbox where workflow_id = ?`, [workflowIds.storeWebhookDispatch(storeId)]))[0]!
    .n;

async function storeWithEndpoints(urls: string[], plan: 'free' | 'paid' = 'paid', on: TestApp = t) {
  const s = await createTestStore(on.orm, { plan });
  const admin = (await addKey(on.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
  for (const url of urls) {
    const r = await on.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(admin),
      payload: { url, events: ['order.created'] },
    });
    expect(r.statusCode, r.body).toBe(201);
  }
  const post = async (externalId: string) => {
    const r = await on.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(admin),
      payload: { external_id: externalId, totals: { total: 1 } },
    });
    expect(r.statusCode, r.body).toBe(201);
    return r.json().order.id as string;
  };
  return { ...s, admin, post };
}

describe('order writes wake the lane: a Temporal signal only when it is idle', () => {
  // These tests hold and release the lease themselves: their stores are counted in 1000 shards, whose
  // dispatchers (webhook-dispatch/<n>-of-1000) serve almost no other store, so no real run renews it.
  const shards = webhookShards.count;
  beforeAll(() => void (webhookShards.count = 1000));
  afterEach(() => sql(`update lanes set active_until = '-infinity' where workflow_id like 'webhook-dispatch/%-of-1000'`));
  afterAll(() => void (webhookShards.count = shards));
  it('while the lane runs, a write queues no hand-off; once idle, one; and no event is lost either way', async () => {
    const receiver = await startReceiver();
    const s = await storeWithEndpoints([receiver.url()]);
    // Pretend a lane run holds the lane (as a running sendLaneDeliveries does) but sends nothing.
    await sql(
      `insert into lanes (workflow_id, active_until) values (?, 'infinity') on conflict (workflow_id) do update set active_until = 'infinity'`,
      [workflowIds.storeWebhookDispatch(s.store.id)],
    );
    const first = await s.post('lane-1');
    expect(await laneWakeUps(s.store.id)).toBe(0);
    await sql(`update lanes set active_until = '-infinity' where workflow_id = ?`, [workflowIds.storeWebhookDispatch(s.store.id)]);
    const second = await s.post('lane-2');
    expect(await laneWakeUps(s.store.id)).toBe(1);
    // The run woken by the second write sends the first one's event too.
    await eventually(() => receiver.received.length === 2, 20_000, 'both deliveries');
    expect(receiver.received.map((r) => JSON.parse(r.body).data.order.id).sort()).toEqual([first, second].sort());
    await receiver.close();
  });

  it('a lane going idle waits for a write that saw it running, then sees that write’s events', async () => {
    // In a database of its own: in the shared one, a running dispatcher of the shared worker (which counts the
    // stores in WEBHOOK_SHARDS shards, not in this file's 1000) took the event as soon as it committed, now and
    // then before the check at the end read it, when other files' orders woke that dispatcher meanwhile.
    const database = await createIsolatedDatabase();
    const own = await createTestApp({ DATABASE_URL: database.url });
    const s = await storeWithEndpoints([], 'paid', own);
    const orderId = await s.post('idle-race');
    await own.orm.em
      .fork()
      .execute(
        `insert into lanes (workflow_id, active_until) values (?, 'infinity') on conflict (workflow_id) do update set active_until = 'infinity'`,
        [workflowIds.storeWebhookDispatch(s.store.id)],
      );
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    try {
      await writer.query('begin');
      // What recordOrderEvents does: it reads the lane FOR SHARE, sees it running, queues no signal.
      const seen = await writer.query<{ running: boolean }>(
        `select active_until > now() as running from lanes where workflow_id = $1 for share`,
        [workflowIds.storeWebhookDispatch(s.store.id)],
      );
      expect(seen.rows).toEqual([{ running: true }]);
      await writer.query(
        `insert into order_events (id, store_id, order_id, type, actor, payload) values (gen_random_uuid(), $1, $2, 'order.updated', 'test', '{}')`,
        [s.store.id, orderId],
      );
      let released = false;
      const releasing = releaseLane(own.orm.em.fork(), workflowIds.storeWebhookDispatch(s.store.id)).then(() => (released = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(released).toBe(false);
      await writer.query('commit');
      await releasing;
      expect(await storeEventsWaiting(own.orm.em.fork(), s.store.id)).toBe(true);
    } finally {
      await writer.end();
      await own.close();
      await database.drop();
    }
  });
});

describe('an operator finds an attempt in Temporal', () => {
  it('the delivery row names the lane’s run and activity, and that activity’s result lists the delivery by id, order and endpoint', async () => {
    const receiver = await startReceiver();
    const s = await storeWithEndpoints([receiver.url()]);
    const orderId = await s.post('find-me');
    await eventually(
      async () => (await sql(`select 1 from webhook_deliveries where order_id = ? and status = 'delivered'`, [orderId])).length === 1,
      20_000,
      'delivered',
    );
    const [row] = await sql<{ id: string; endpoint_id: string; workflow_id: string; run_id: string; activity_id: string }>(
      `select id, endpoint_id, workflow_id, run_id, activity_id from webhook_deliveries where order_id = ?`,
      [orderId],
    );
    // The store's shard is derived from its id: the row names that dispatcher, its run and its activity.
    expect(row!.workflow_id).toBe(workflowIds.storeWebhookDispatch(s.store.id));
    expect(row!.workflow_id).toBe(`webhook-dispatch/${webhookShard(s.store.id, webhookShards.count)}-of-${webhookShards.count}`);
    const handle = t.temporal.client.workflow.getHandle(row!.workflow_id, row!.run_id);
    const description = await handle.describe();
    expect(description.type).toBe('webhookDispatchWorkflow');
    // The run ends when the shard has been idle for a while (or at its limits); its result is then in the history.
    let outcome: LaneOutcome | undefined;
    await eventually(
      async () => {
        const history = await handle.fetchHistory();
        const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityId === row!.activity_id);
        const completed = history.events!.find(
          (e) =>
            e.activityTaskCompletedEventAttributes &&
            String(e.activityTaskCompletedEventAttributes.scheduledEventId) === String(scheduled?.eventId),
        );
        const payload = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
        if (payload) outcome = defaultPayloadConverter.fromPayload<LaneOutcome>(payload);
        return outcome !== undefined;
      },
      DISPATCH.maxRunMs + 30_000,
      'the lane run’s result',
    );
    expect(outcome!.attempts).toContainEqual({
      delivery: row!.id,
      order: orderId,
      endpoint: row!.endpoint_id,
      event: expect.stringMatching(/^order\.created /),
      result: 'delivered (200)',
    });
    await receiver.close();
  }, 400_000);
});

describe('fairness between stores', () => {
  it('a store with 10 endpoints that never answer and 150 new orders holds at most 4 attempts per endpoint, and another store’s delivery still arrives within 3 s of its commit', async () => {
    // Endpoints that take the request and never answer (the worker gives up after WEBHOOK_TIMEOUT_MS).
    const hanging = await startReceiver(() => undefined);
    /** The most attempts seen in flight at once, per endpoint. */
    const most = new Map<string, number>();
    const stuck = await storeWithEndpoints(Array.from({ length: 10 }, (_, i) => hanging.url(`/stuck-${i}`)));
    const fine = await startReceiver();
    const other = await storeWithEndpoints([fine.url()]);

    // 150 orders in three batches of 50: 1,500 deliveries to endpoints that hang.
    for (let b = 0; b < 3; b++) {
      const orders = Array.from({ length: 50 }, (_, i) => ({ external_id: `stuck-${b}-${i}`, totals: { total: 1 } }));
      const r = await t.request({ method: 'POST', url: '/api/v1/orders/batch', headers: bearer(stuck.admin), payload: { orders } });
      expect(r.statusCode, r.body).toBe(200);
    }
    await eventually(() => hanging.received.length >= 40, 20_000, 'the stuck store’s lane at its limit');
    const sampler = setInterval(async () => {
      const rows = await sql<{ endpoint_id: string; n: number }>(
        `select endpoint_id, count(*)::int as n from webhook_deliveries where store_id = ? and status = 'sending' group by endpoint_id`,
        [stuck.store.id],
      );
      for (const r of rows) most.set(r.endpoint_id, Math.max(most.get(r.endpoint_id) ?? 0, r.n));
    }, 100);

    try {
      const committed = Date.now();
      const orderId = await other.post('not-held-back');
      await eventually(() => fine.received.some((r) => JSON.parse(r.body).data.order.id === orderId), 10_000, 'the other store’s delivery');
      const took = fine.received.find((r) => JSON.parse(r.body).data.order.id === orderId)!.at - committed;
      console.log(`[fairness] the other store's delivery arrived ${took} ms after its commit, with the stuck store's lane at its limit`);
      expect(took).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      clearInterval(sampler);
    }
    expect(most.size).toBe(10);
    expect(Math.max(...most.values())).toBeLessThanOrEqual(DISPATCH.limits.perEndpoint);
    // Closing the hanging receiver makes the rest of the backlog fail fast instead of occupying the worker.
    await hanging.close();
    await fine.close();
  });
});
