import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { errorOf, orderBody, orderCount, ordersApi, sql } from './fixtures.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { recordStatements } from '../helpers/sql-count.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { workflowIds } from '../../workflows/catalog.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  // A live endpoint for every kind: events are handed to Temporal only when someone subscribes.
  receiver = await startReceiver();
  await createEndpoint(t.orm.em.fork(), {
    storeId: s.store.id,
    url: receiver.url(),
    events: ['*'],
    secretsKey: t.config.secretsKey,
    policy: { allowLoopback: true },
  });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** Hand-offs queued for the store's webhook lane so far. */
const laneWakeUps = async () =>
  (
    await sql<{ n: number }>(t, `select count(*)::int as n from outbox where workflow_id = ?`, [
      workflowIds.storeWebhookDispatch(s.store.id),
    ])
  )[0]!.n;

describe('POST /orders/batch takes 1 to 50 orders', () => {
  it('refuses 0 and 51 orders with 400 param orders', async () => {
    expect(errorOf(await api.batch([]))).toEqual({ status: 400, code: 'invalid_request', param: 'orders' });
    expect(errorOf(await api.batch(Array.from({ length: 51 }, () => orderBody())))).toEqual({
      status: 400,
      code: 'invalid_request',
      param: 'orders',
    });
  });

  it('refuses a body without orders and a non-boolean backfill', async () => {
    expect(
      errorOf(
        await t.request({ method: 'POST', url: '/api/v1/orders/batch', headers: { authorization: `Bearer ${s.secret}` }, payload: {} }),
      ),
    ).toMatchObject({ status: 400, param: 'orders' });
    expect(errorOf(await api.batch([orderBody()], 'yes' as never))).toMatchObject({ status: 400, param: 'backfill' });
  });

  it('applies 50 orders and answers one result per input, in order, with external_id, ok, action and id', async () => {
    const bodies = Array.from({ length: 50 }, () => orderBody());
    const res = await api.batch(bodies);
    expect(res.statusCode).toBe(200);
    const { results } = res.json();
    expect(results).toHaveLength(50);
    results.forEach((r: Record<string, unknown>, i: number) =>
      expect(r).toEqual({ external_id: bodies[i]!.external_id, ok: true, action: 'created', id: expect.any(String) }),
    );
    const again = (await api.batch(bodies)).json().results;
    expect(again.map((r: { action: string }) => r.action)).toEqual(Array(50).fill('unchanged'));
    expect(again.map((r: { id: string }) => r.id)).toEqual(results.map((r: { id: string }) => r.id));
  });
});

describe('one bad order never fails the batch', () => {
  it('answers ok: false with an error for the bad order while the others are stored', async () => {
    const good1 = orderBody();
    const good2 = orderBody();
    const bad = orderBody();
    delete bad.totals;
    const res = await api.batch([good1, bad, orderBody({ status: 'warp' }), good2, orderBody({ test: true }), 'not an order']);
    expect(res.statusCode).toBe(200);
    const [r1, r2, r3, r4, r5, r6] = res.json().results;
    expect(r1).toMatchObject({ external_id: good1.external_id, ok: true, action: 'created' });
    expect(r2).toEqual({ external_id: bad.external_id, ok: false, error: expect.stringContaining('totals.total') });
    expect(r3).toEqual({ external_id: expect.any(String), ok: false, error: expect.stringContaining('status') });
    expect(r4).toMatchObject({ external_id: good2.external_id, ok: true, action: 'created' });
    expect(r5).toMatchObject({ ok: true, action: 'skipped' });
    expect(r6).toEqual({ external_id: null, ok: false, error: expect.any(String) });
    expect(await orderCount(t, s.store.id, 'external_id = ?', [bad.external_id])).toBe(0);
  });

  it('applies the same external_id twice in one batch in order', async () => {
    const body = orderBody({ status: 'confirmed' });
    const res = await api.batch([body, { ...body, status: 'shipped' }, body]);
    expect(res.statusCode).toBe(200);
    const results = res.json().results;
    expect(results.map((r: { action: string }) => r.action)).toEqual(['created', 'updated', 'updated']);
    expect(new Set(results.map((r: { id: string }) => r.id)).size).toBe(1);
    // The third copy says confirmed again: it never moves the order back from shipped.
    expect((await api.get(results[0].id)).json().order.status).toBe('shipped');
    const again = (await api.batch([body, body])).json().results;
    expect(again.map((r: { action: string }) => r.action)).toEqual(['unchanged', 'unchanged']);
  });
});

describe('backfill: true marks events and hands none of them to Temporal', () => {
  it('records order events with backfill = true and writes no outbox rows for them', async () => {
    const storeOutbox = async () =>
      (await sql<{ n: number }>(t, `select count(*)::int as n from outbox where search_attributes->>'StoreId' = ?`, [s.store.id]))[0]!.n;
    const before = await storeOutbox();
    const bodies = [orderBody(), orderBody()];
    const res = await api.batch(bodies, true);
    const ids = res.json().results.map((r: { id: string }) => r.id);
    const updated = await api.batch([{ ...bodies[0], status: 'shipped' }], true);
    expect(updated.json().results[0].action).toBe('updated');
    const events = await sql<{ type: string; backfill: boolean }>(
      t,
      `select type, backfill from order_events where order_id = any(select jsonb_array_elements_text(?::jsonb)::uuid) order by created_at`,
      [JSON.stringify(ids)],
    );
    expect(events.map((e) => e.type)).toEqual([
      'order.created',
      'order.created',
      'order.updated',
      'order.paid',
      'order.fulfilled',
      'order.shipped',
    ]);
    expect(events.every((e) => e.backfill)).toBe(true);
    expect(await storeOutbox()).toBe(before);
  });

  it('without backfill a batch wakes the store’s webhook lane with at most one outbox row, and every event is handed over', async () => {
    const bodies = [orderBody(), orderBody()];
    const first = await laneWakeUps();
    const ids = (await api.batch(bodies)).json().results.map((r: { id: string }) => r.id);
    const second = await laneWakeUps();
    expect(second - first).toBeLessThanOrEqual(1);
    await api.batch([{ ...bodies[0], status: 'shipped' }], false);
    expect((await laneWakeUps()) - second).toBeLessThanOrEqual(1);
    await eventually(
      async () =>
        (
          await sql<{ n: number }>(
            t,
            `select count(*)::int as n from order_events where order_id = any(select jsonb_array_elements_text(?::jsonb)::uuid) and dispatched_at is null`,
            [JSON.stringify(ids)],
          )
        )[0]!.n === 0,
      20_000,
      'every event handed over',
    );
    // created ×2; then updated, paid, fulfilled, shipped for the first order.
    const events = await sql<{ backfill: boolean }>(
      t,
      `select backfill from order_events where order_id = any(select jsonb_array_elements_text(?::jsonb)::uuid)`,
      [JSON.stringify(ids)],
    );
    expect(events).toHaveLength(6);
    expect(events.some((e) => e.backfill)).toBe(false);
  });
});

describe('a 50-order batch is one round of database work', () => {
  it('runs a bounded number of SQL statements, not one set per order', async () => {
    const count = async (n: number) => {
      const customer = { name: 'C', phone: '0612345678', address_line1: 'Rue', city: 'Fes', country: 'MA' };
      const { result: res, statements } = await recordStatements(t.orm, () =>
        api.batch(Array.from({ length: n }, () => orderBody({ payment: { is_cod: true }, customer }))),
      );
      expect(res.json().results.every((r: { ok: boolean }) => r.ok)).toBe(true);
      return statements.length;
    };
    const one = await count(1);
    const fifty = await count(50);
    // auth; the held copies + phone history; one write: orders, history, subscribed kinds, events, outbox, notify.
    expect(one).toBe(3);
    expect(fifty).toBe(one);
    expect(fifty).toBeLessThanOrEqual(12);
  });
});
