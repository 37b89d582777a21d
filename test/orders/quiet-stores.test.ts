import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { workflowIds } from '../../workflows/catalog.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { isQuietStore, noteStoreSends } from '../../services/orders/quiet-stores.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { eventTypes, orderBody, ordersApi, sql } from './fixtures.js';

// A store with nothing to send to (no live webhook endpoint, push device or chat messages) has its orders
// written by the quiet statement (services/orders/quiet-stores.ts). The API remembers that a store was quiet;
// these tests make that memory stale (a receiver added since) and check that nothing is lost: the statement
// must see the change itself.

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** A store whose orders this process has found quiet: two orders written, the second by the quiet statement. */
async function quietStore() {
  const s = await createTestStore(t.orm, { plan: 'paid' });
  const api = ordersApi(t, s.secret);
  const first = orderBody({ status: 'confirmed' });
  for (const body of [first, orderBody({ status: 'confirmed' })]) expect((await api.post(body)).statusCode).toBe(201);
  expect(isQuietStore(s.store.id)).toBe(true);
  return { s, api, first };
}

const dispatched = (orderId: string) =>
  sql<{ type: string; dispatched: boolean }>(
    t,
    'select type, dispatched_at is not null as dispatched from order_events where order_id = ? order by created_at',
    [orderId],
  );
const outboxOf = (workflowId: string) => sql(t, 'select 1 from outbox where workflow_id = ?', [workflowId]);

describe('a quiet store’s orders: written lean, nothing lost when the store starts sending', () => {
  it('a quiet store’s order events are recorded, as dispatched, with its status history, once each', async () => {
    const { s, api } = await quietStore();
    const res = await api.post(orderBody({ status: 'shipped', payment: { status: 'paid' }, tracking: { number: 'Q1' } }));
    expect(res.statusCode).toBe(201);
    const id = res.json().order.id;
    expect(await dispatched(id)).toEqual([
      { type: 'order.created', dispatched: true },
      { type: 'order.paid', dispatched: true },
    ]);
    expect(await sql(t, 'select status, actor from order_status_history where order_id = ?', [id])).toEqual([
      { status: 'shipped', actor: expect.stringMatching(/^key:/) },
    ]);
    expect(await outboxOf(workflowIds.orderPush(id))).toEqual([]);
    expect(isQuietStore(s.store.id)).toBe(true);
  });

  it('a webhook endpoint added since: the next new order and the next update are delivered, each event once', async () => {
    const { s, api, first } = await quietStore();
    await createEndpoint(t.orm.em.fork(), {
      storeId: s.store.id,
      url: receiver.url(`/quiet-${s.store.id}`),
      events: ['*'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: true },
    });
    const created = await api.post(orderBody({ status: 'confirmed', payment: { is_cod: true } }));
    expect(created.statusCode).toBe(201);
    const updated = await api.post({ ...first, status: 'shipped' });
    expect(updated.json().action).toBe('updated');
    expect(isQuietStore(s.store.id)).toBe(false);
    const received = () =>
      receiver.received
        .filter((r) => r.path === `/quiet-${s.store.id}`)
        .map((r) => JSON.parse(r.body) as { type: string; data: { order: { id: string } } })
        .map((e) => `${e.data.order.id === created.json().order.id ? 'new' : 'old'} ${e.type}`)
        .sort();
    await eventually(() => received().length >= 4, 20_000, 'four deliveries');
    expect(received()).toEqual(['new order.created', 'old order.fulfilled', 'old order.shipped', 'old order.updated']);
    expect(await eventTypes(t, created.json().order.id)).toEqual(['order.created']);
  });

  it('a push device or chat messages turned on since: the next new order queues its push and its chat message', async () => {
    const push = await quietStore();
    const ownerId = randomUUID();
    await sql(t, `insert into owners (id, email, password_hash) values (?, ?, 'x')`, [ownerId, `quiet-${ownerId}@example.com`]);
    await sql(t, `insert into owner_stores (owner_id, store_id) values (?, ?)`, [ownerId, push.s.store.id]);
    await sql(t, `insert into push_subscriptions (id, store_id, owner_id, endpoint, p256dh, auth) values (?, ?, ?, ?, 'k', 'a')`, [
      randomUUID(),
      push.s.store.id,
      ownerId,
      receiver.url(`/push-${ownerId}`),
    ]);
    const pushed = (await push.api.post(orderBody({ status: 'confirmed' }))).json().order.id;
    expect(await outboxOf(workflowIds.orderPush(pushed))).toHaveLength(1);

    const chat = await quietStore();
    await sql(
      t,
      `insert into chat_settings (store_id, enabled, base_url, api_version, phone_number_id, token_sealed) values (?, true, ?, 'v1', '1', 'x')`,
      [chat.s.store.id, receiver.url('/chat')],
    );
    const chatted = (await chat.api.post(orderBody({ status: 'confirmed' }))).json().order.id;
    expect(await outboxOf(workflowIds.orderChat(chatted))).toHaveLength(1);
    expect(await eventTypes(t, chatted)).toEqual(['order.created', 'order.paid']);
  });

  it('a store that removes its last endpoint is written lean again', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const endpoint = await createEndpoint(t.orm.em.fork(), {
      storeId: s.store.id,
      url: receiver.url('/gone'),
      events: ['*'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: true },
    });
    const api = ordersApi(t, s.secret);
    expect((await api.post(orderBody())).statusCode).toBe(201);
    expect(isQuietStore(s.store.id)).toBe(false);
    await sql(t, 'update webhook_endpoints set deleted_at = now() where id = ?', [endpoint.id]);
    expect((await api.post(orderBody())).statusCode).toBe(201);
    expect(isQuietStore(s.store.id)).toBe(true);
  });
});

describe('what the API remembers of quiet stores is bounded', () => {
  it('past 20,000 quiet stores the first noted is forgotten (its next write runs the full statement), the latest kept', () => {
    const ids = Array.from({ length: 20_001 }, () => randomUUID());
    for (const id of ids) noteStoreSends(id, false);
    expect(isQuietStore(ids[0]!)).toBe(false);
    expect(isQuietStore(ids[20_000]!)).toBe(true);
    noteStoreSends(ids[20_000]!, true);
    expect(isQuietStore(ids[20_000]!)).toBe(false);
  });
});
