import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ORDER_EVENT_TYPES } from '../../domain/order-events.js';
import { webhookShard, webhookShards } from '../../workflows/webhooks/definitions.js';
import { workflowIds } from '../../workflows/catalog.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { startReceiver } from '../helpers/receiver.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { eventTypes, orderBody, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
});
afterAll(() => t.close());

/** Creates an order and returns it with a function giving the event types written since. */
async function tracked(client: ReturnType<typeof ordersApi>, body: Record<string, unknown>) {
  const res = await client.post(body);
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json().order;
  let seen = (await eventTypes(t, order.id)).length;
  const since = async () => {
    const all = await eventTypes(t, order.id);
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };
  return { order, since };
}

describe('order events: which change writes which events (docs/orders.md, Events)', () => {
  it('a new order gives order.created only, whatever its status, when it is not paid', async () => {
    const { order } = await tracked(api, orderBody({ status: 'shipped', payment: { status: 'pending' }, tracking: { number: 'T1' } }));
    expect(await eventTypes(t, order.id)).toEqual(['order.created']);
    const cod = await tracked(api, orderBody({ status: 'confirmed', payment: { is_cod: true } }));
    expect(await eventTypes(t, cod.order.id)).toEqual(['order.created']);
  });

  it('a new order that arrives paid gives order.created, then order.paid (said or inferred), and no second order.paid later', async () => {
    const said = await tracked(api, orderBody({ status: 'shipped', payment: { status: 'paid' }, tracking: { number: 'T1' } }));
    expect(await eventTypes(t, said.order.id)).toEqual(['order.created', 'order.paid']);
    const body = orderBody({ status: 'confirmed' });
    const inferred = await tracked(api, body);
    expect(inferred.order.payment.status).toBe('paid');
    expect(await eventTypes(t, inferred.order.id)).toEqual(['order.created', 'order.paid']);
    await api.post({ ...body, status: 'shipped' });
    expect(await inferred.since()).toEqual(['order.updated', 'order.fulfilled', 'order.shipped']);
  });

  it('confirmed → shipped gives order.updated, order.fulfilled, order.shipped', async () => {
    const { order, since } = await tracked(api, orderBody({ status: 'confirmed' }));
    await api.patch(order.id, { status: 'shipped' });
    expect(await since()).toEqual(['order.updated', 'order.fulfilled', 'order.shipped']);
  });

  it('payment becoming paid gives order.updated, order.paid; pending → confirmed adds order.confirmed', async () => {
    const body = orderBody({ status: 'pending', payment: { status: 'pending' } });
    const { since } = await tracked(api, body);
    await api.post({ ...body, payment: { status: 'paid' } });
    expect(await since()).toEqual(['order.updated', 'order.paid']);
    await api.post({ ...body, status: 'confirmed', payment: { status: 'paid' } });
    expect(await since()).toEqual(['order.updated', 'order.confirmed']);
  });

  it('attaching a first tracking number gives order.fulfilled once', async () => {
    const { order, since } = await tracked(api, orderBody({ status: 'confirmed' }));
    await api.patch(order.id, { tracking: { number: 'AWB-9' } });
    expect(await since()).toEqual(['order.updated', 'order.fulfilled']);
    await api.patch(order.id, { status: 'out_for_delivery' });
    expect(await since()).toEqual(['order.updated', 'order.out_for_delivery']);
    await api.patch(order.id, { status: 'completed' });
    expect(await since()).toEqual(['order.updated', 'order.completed']);
  });

  it('a tracking number on an upserted copy moves it to shipped with the matching events', async () => {
    const body = orderBody({ status: 'confirmed' });
    const { since } = await tracked(api, body);
    await api.post({ ...body, tracking: { number: 'AWB-10', courier: 'Amana' } });
    expect(await since()).toEqual(['order.updated', 'order.fulfilled', 'order.shipped']);
  });

  it('cancelling gives order.updated, order.cancelled; returning to pending names no status event', async () => {
    const body = orderBody({ status: 'pending', payment: { is_cod: true } });
    const { since } = await tracked(api, body);
    await api.post({ ...body, status: 'cancelled' });
    expect(await since()).toEqual(['order.updated', 'order.cancelled']);
    await api.post({ ...body, status: 'pending' });
    expect(await since()).toEqual(['order.updated']);
  });

  it('archiving (DELETE or deleted: true) gives order.updated; an unchanged re-send gives nothing', async () => {
    const body = orderBody();
    const { order, since } = await tracked(api, body);
    await api.post(body);
    expect(await since()).toEqual([]);
    await api.post({ ...body, deleted: true });
    expect(await since()).toEqual(['order.updated']);
    const other = await tracked(api, orderBody());
    await api.archive(other.order.id);
    expect(await other.since()).toEqual(['order.updated']);
    await api.archive(other.order.id);
    expect(await other.since()).toEqual([]);
    expect(order.id).toBeTruthy();
  });
});

describe('docs/orders.md documents every event type', () => {
  it('names each event type, or its status in the order.<status> row, in the Events section', () => {
    const doc = readFileSync(new URL('../../docs/orders.md', import.meta.url), 'utf8');
    const events = doc.slice(doc.indexOf('## Events'));
    const statusRow = events.split('\n').find((line) => line.includes('`order.<status>`'))!;
    for (const type of ORDER_EVENT_TYPES) {
      expect(events.includes(`\`${type}\``) || statusRow.includes(`\`${type.slice('order.'.length)}\``), type).toBe(true);
    }
  });
});

describe('order events carry who caused them, for the no-echo rule', () => {
  it('a secret key’s change records its key as actor and no connection', async () => {
    const { order } = await tracked(api, orderBody());
    const [e] = await sql<{ actor: string; connection_id: string | null; backfill: boolean; payload: { id: string } }>(
      t,
      'select actor, connection_id, backfill, payload from order_events where order_id = ?',
      [order.id],
    );
    expect(e).toMatchObject({ actor: expect.stringMatching(/^key:/), connection_id: null, backfill: false });
    expect(e!.payload).toEqual(order);
  });

  it('a connection key’s change records the connection as actor and connection_id', async () => {
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const { order } = await tracked(ordersApi(t, conn.key), orderBody({ status: 'processing' }));
    const [e] = await sql(t, 'select actor, connection_id from order_events where order_id = ?', [order.id]);
    expect(e).toEqual({ actor: `connection:${conn.id}`, connection_id: conn.id });
  });
});

describe('order events are handed to Temporal through the outbox, once each', () => {
  // Events go to Temporal only when a live webhook endpoint subscribes: this store has one ('*').
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hooked: TestStore;
  beforeAll(async () => {
    receiver = await startReceiver();
    hooked = await createTestStore(t.orm, { plan: 'paid' });
    await createEndpoint(t.orm.em.fork(), {
      storeId: hooked.store.id,
      url: receiver.url(),
      events: ['*'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: true },
    });
    api = ordersApi(t, hooked.secret);
    s = hooked;
  });
  afterAll(() => receiver.close());

  it('events nobody subscribes to are recorded as dispatched and never handed over', async () => {
    // Counted in 1000 shards, the store's dispatcher serves almost no other store: no other write wakes it.
    const shards = webhookShards.count;
    webhookShards.count = 1000;
    onTestFinished(() => void (webhookShards.count = shards));
    const quiet = await createTestStore(t.orm, { plan: 'paid' });
    const res = await ordersApi(t, quiet.secret).post(orderBody());
    const id = res.json().order.id;
    expect(
      await sql(t, 'select dispatch_count, dispatched_at is not null as dispatched from order_events where order_id = ?', [id]),
    ).toEqual([{ dispatch_count: 0, dispatched: true }]);
    expect(await sql(t, 'select id from outbox where workflow_id = ?', [workflowIds.storeWebhookDispatch(quiet.store.id)])).toEqual([]);
  });

  it('a change with events wakes the idle dispatcher of the store’s shard: one outbox row webhook-dispatch/<shard>-of-<n>, signal deliveriesWaiting', async () => {
    // Counted in 1000 shards, the store's dispatcher serves almost no other store: it is idle here.
    const shards = webhookShards.count;
    webhookShards.count = 1000;
    onTestFinished(() => void (webhookShards.count = shards));
    const fresh = await createTestStore(t.orm, { plan: 'paid' });
    await createEndpoint(t.orm.em.fork(), {
      storeId: fresh.store.id,
      url: receiver.url(),
      events: ['*'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: true },
    });
    const { order } = await tracked(ordersApi(t, fresh.secret), orderBody({ status: 'confirmed', payment: { is_cod: true } }));
    expect(await eventTypes(t, order.id)).toEqual(['order.created']);
    const rows = await sql<{ action: string; workflow_type: string; signal_name: string; search_attributes: unknown; args: unknown }>(
      t,
      `select action, workflow_type, signal_name, search_attributes, args from outbox where workflow_id = ? order by id`,
      [workflowIds.storeWebhookDispatch(fresh.store.id)],
    );
    expect(rows).toEqual([
      {
        action: 'signal_with_start',
        workflow_type: 'webhookDispatchWorkflow',
        signal_name: 'deliveriesWaiting',
        search_attributes: {},
        args: [{ shard: webhookShard(fresh.store.id, 1000), shards: 1000 }],
      },
    ]);
  });

  it('the worker runs each event’s workflow: dispatch_count reaches 1 and stays there', async () => {
    const { order } = await tracked(api, orderBody({ status: 'confirmed' }));
    await api.patch(order.id, { status: 'completed', comment: 'delivered' });
    const ids = (await sql<{ id: string }>(t, 'select id from order_events where order_id = ?', [order.id])).map((r) => r.id);
    // order.created, order.paid (it arrived paid), order.updated, order.fulfilled, order.completed
    expect(ids).toHaveLength(5);
    await vi.waitFor(
      async () => {
        const rows = await sql<{ n: number }>(t, 'select dispatch_count as n from order_events where order_id = ?', [order.id]);
        expect(rows.map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
      },
      { timeout: 15_000, interval: 200 },
    );
    // The relay marks its rows done after Temporal accepted the whole batch, so the workflow can dispatch
    // the events before that commit: wait for it too.
    await vi.waitFor(
      async () => {
        const done = await sql<{ done: boolean }>(t, `select done_at is not null as done from outbox where workflow_id = ?`, [
          workflowIds.storeWebhookDispatch(s.store.id),
        ]);
        expect(done.every((d) => d.done)).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
    await new Promise((r) => setTimeout(r, 1500));
    const again = await sql<{ n: number }>(t, 'select dispatch_count as n from order_events where order_id = ?', [order.id]);
    expect(again.map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
  });

  it('backfill events are recorded but never handed over nor dispatched', async () => {
    const res = await api.batch([orderBody()], true);
    const id = res.json().results[0].id;
    await new Promise((r) => setTimeout(r, 1500));
    expect(await sql(t, 'select backfill, dispatch_count from order_events where order_id = ?', [id])).toEqual([
      { backfill: true, dispatch_count: 0 },
    ]);
    expect(await sql(t, 'select id from webhook_deliveries where order_id = ?', [id])).toEqual([]);
  });
});
