import { verify as verifyOctokit } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../domain/secret-box.js';
import { claimDeliveries } from '../../services/webhooks/lane.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function storeWithWebhooks() {
  const s = await createTestStore(t.orm);
  const key = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
  return { ...s, admin: key.key };
}

const register = (s: TestStore & { admin: string }, url: string, events?: string[]) =>
  t.request({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(s.admin), payload: { url, ...(events ? { events } : {}) } });
const order = (s: TestStore, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  order_id: string;
  status: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  attempted_at: string | null;
  finished_at: string | null;
}
/** The store's delivery rows, oldest first. */
const deliveriesOf = (storeId: string) =>
  t.orm.em.fork().execute<DeliveryRow[]>(`select * from webhook_deliveries where store_id = ? order by created_at, id`, [storeId]);
/** Waits until the store's deliveries have all finished (none pending or sending) and there are `n`. */
async function settled(storeId: string, n: number, timeoutMs = 20_000) {
  await eventually(
    async () => {
      const rows = await deliveriesOf(storeId);
      return rows.length === n && rows.every((r) => r.status !== 'pending' && r.status !== 'sending');
    },
    timeoutMs,
    `${n} finished deliveries`,
  );
  return deliveriesOf(storeId);
}

describe('signed one-shot delivery to a real receiver', () => {
  it('delivers order.created with headers and a signature that independent libraries verify', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    const created = await register(s, receiver.url());
    expect(created.statusCode, created.body).toBe(201);
    const { secret, events } = created.json();
    expect(secret).toMatch(/^whsec_/);
    expect(events).toEqual(['*']);

    const res = await order(s, { external_id: 'wh-1', totals: { total: 42.5 } });
    await eventually(() => receiver.received.length === 1, 20_000, 'delivery');
    const [hit] = receiver.received;
    expect(hit!.headers['x-service-event']).toBe('order.created');
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['user-agent']).toMatch(/StoreCommerce/);
    expect(hit!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyOctokit(secret, hit!.body, hit!.headers['x-service-signature'] as string)).toBe(true);
    expect(await verifyOctokit(secret, JSON.stringify(JSON.parse(hit!.body), null, 2), hit!.headers['x-service-signature'] as string)).toBe(
      false,
    );
    // The Standard Webhooks scheme, verified by its own library.
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    const body = JSON.parse(hit!.body);
    expect(body).toMatchObject({ type: 'order.created', data: { order: { id: res.json().order.id, external_id: 'wh-1' } } });
    expect(hit!.headers['x-service-delivery']).toBeTruthy();
    await receiver.close();
  });

  it('a body with multi-byte text arrives whole: its Content-Length, both signatures and its order are those of its bytes', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    const { secret } = (await register(s, receiver.url())).json();
    const text = 'Zoë · 東京 · 👩‍👩‍👧 · "quoted" \\ back';
    const res = await order(s, {
      external_id: 'wh-utf8',
      totals: { total: 9.5 },
      note: text,
      customer: { name: text },
      items: [{ name: text, quantity: 1, unit_price: 9.5 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    await eventually(() => receiver.received.length === 1, 20_000, 'delivery');
    const hit = receiver.received[0]!;
    expect(Number(hit.headers['content-length'])).toBe(Buffer.byteLength(hit.body));
    expect(await verifyOctokit(secret, hit.body, hit.headers['x-service-signature'] as string)).toBe(true);
    expect(() => new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).not.toThrow();
    expect(JSON.parse(hit.body).data.order).toEqual(res.json().order);
    expect(JSON.parse(hit.body).data.order.note).toBe(text);
    await receiver.close();
  });

  it('sends only subscribed kinds, in the order the events happened', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    await register(s, receiver.url(), ['order.created', 'order.shipped', 'order.cancelled']);
    const res = await order(s, { external_id: 'wh-2', totals: { total: 1 } });
    const id = res.json().order.id;
    await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(s.secret), payload: { status: 'shipped' } });
    await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(s.secret), payload: { status: 'cancelled' } });
    await eventually(() => receiver.received.length === 3, 20_000, 'three deliveries');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.map((r) => r.headers['x-service-event'])).toEqual(['order.created', 'order.shipped', 'order.cancelled']);
    await receiver.close();
  });
});

describe('an order that arrives paid is heard by order.paid subscribers (docs/orders.md, Events)', () => {
  it('delivers order.created then order.paid for an order created paid, and order.paid alone to an order.paid-only endpoint', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    expect((await register(s, receiver.url('/all'))).statusCode).toBe(201);
    expect((await register(s, receiver.url('/paid'), ['order.paid'])).statusCode).toBe(201);
    const res = await order(s, { external_id: 'wh-paid', status: 'confirmed', payment: { status: 'paid' }, totals: { total: 12 } });
    expect(res.statusCode, res.body).toBe(201);
    await eventually(() => receiver.received.length === 3, 20_000, 'three deliveries');
    await sleep(500);
    const seen = (path: string) =>
      receiver.received.filter((r) => r.path === path).map((r) => [r.headers['x-service-event'], JSON.parse(r.body).data.order.id]);
    const id = res.json().order.id;
    expect(seen('/all')).toEqual([
      ['order.created', id],
      ['order.paid', id],
    ]);
    expect(seen('/paid')).toEqual([['order.paid', id]]);
    await receiver.close();
  });
});

describe('every attempt is recorded', () => {
  it('the delivery row names endpoint, event, status code, duration and time; its id is the X-Service-Delivery, the event id the webhook-id', async () => {
    const receiver = await startReceiver((_r, res) => void res.writeHead(204).end());
    const s = await storeWithWebhooks();
    const endpoint = (await register(s, receiver.url())).json();
    const started = Date.now();
    const created = (await order(s, { external_id: 'wh-rec', totals: { total: 3 } })).json();
    const [row] = await settled(s.store.id, 1);
    const [event] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from order_events where order_id = ?`, [created.order.id]);
    expect(row).toMatchObject({
      endpoint_id: endpoint.id,
      event_id: event!.id,
      event_type: 'order.created',
      order_id: created.order.id,
      status: 'delivered',
      response_status: 204,
      error: null,
    });
    expect(row!.duration_ms).toEqual(expect.any(Number));
    expect(new Date(row!.attempted_at!).getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(new Date(row!.attempted_at!).getTime()).toBeLessThanOrEqual(Date.now());
    expect(receiver.received[0]!.headers['x-service-delivery']).toBe(row!.id);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(event!.id);
    const hit = receiver.received[0]!;
    expect(Math.abs(Number(hit.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    // The timestamp is signed: moved back 10 minutes (a replayed capture), the Standard Webhooks library refuses it.
    const stale = {
      ...(hit.headers as Record<string, string>),
      'webhook-timestamp': String(Number(hit.headers['webhook-timestamp']) - 600),
    };
    expect(() => new Webhook(endpoint.secret).verify(hit.body, stale)).toThrow();
    expect(JSON.parse(receiver.received[0]!.body)).toEqual({
      id: event!.id,
      type: 'order.created',
      created_at: expect.any(String),
      data: { order: created.order },
    });
    await receiver.close();
  });
});

describe('one attempt, never retried', () => {
  it('a receiver slower than WEBHOOK_TIMEOUT_MS (2 s here) gets exactly one request, recorded as failed by timeout', async () => {
    const receiver = await startReceiver(async (_r, res) => {
      await sleep(5000);
      res.end('too late');
    });
    const s = await storeWithWebhooks();
    await register(s, receiver.url());
    await order(s, { external_id: 'wh-slow', totals: { total: 1 } });
    const [row] = await settled(s.store.id, 1);
    expect(row).toMatchObject({ status: 'failed', response_status: null, error: expect.stringMatching(/no answer within 2000 ms/) });
    expect(row!.duration_ms).toBeGreaterThanOrEqual(1900);
    expect(row!.duration_ms).toBeLessThan(4000);
    expect(receiver.received).toHaveLength(1);
    await sleep(Math.max(0, receiver.received[0]!.at + 5500 - Date.now()));
    expect(receiver.received).toHaveLength(1);
    expect(await deliveriesOf(s.store.id)).toHaveLength(1);
    await receiver.close();
  });

  it('a 500 answer is recorded as failed with response_status 500 and not retried', async () => {
    const receiver = await startReceiver((_r, res) => void res.writeHead(500).end('boom'));
    const s = await storeWithWebhooks();
    await register(s, receiver.url());
    await order(s, { external_id: 'wh-500', totals: { total: 1 } });
    const [row] = await settled(s.store.id, 1);
    expect(row).toMatchObject({ status: 'failed', response_status: 500, error: 'answered 500' });
    await sleep(3000);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });

  it('a redirect is not followed: the target path never sees a request', async () => {
    let moved = '';
    const receiver = await startReceiver(
      (req, res) => void (req.path === '/hook' ? res.writeHead(302, { location: moved }).end() : res.end('ok')),
    );
    moved = receiver.url('/moved');
    const s = await storeWithWebhooks();
    await register(s, receiver.url());
    await order(s, { external_id: 'wh-302', totals: { total: 1 } });
    const [row] = await settled(s.store.id, 1);
    expect(row).toMatchObject({ status: 'failed', response_status: 302, error: `redirect to ${moved} not followed` });
    await sleep(1000);
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    await receiver.close();
  });
});

describe('the target is checked again at every send', () => {
  it('an endpoint whose stored URL is not allowed (written around the API) is refused at send time, before any connection', async () => {
    const s = await storeWithWebhooks();
    // Refused by shape alone, so the worker neither connects nor asks DNS.
    await t.orm.em
      .fork()
      .execute(`insert into webhook_endpoints (id, store_id, url, events, secret_sealed) values (?, ?, 'http://10.0.0.7/h', '{*}', ?)`, [
        crypto.randomUUID(),
        s.store.id,
        sealSecret(t.config.secretsKey, 'whsec_x'),
      ]);
    await order(s, { external_id: 'wh-refused', totals: { total: 1 } });
    const [row] = await settled(s.store.id, 1);
    expect(row).toMatchObject({ status: 'failed', response_status: null, error: 'refused: must be an https URL' });
  });
});

describe('backfill is silent', () => {
  it('orders sent with backfill: true produce no delivery at all', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    await register(s, receiver.url());
    const batch = await t.request({
      method: 'POST',
      url: '/api/v1/orders/batch',
      headers: bearer(s.secret),
      payload: {
        backfill: true,
        orders: [
          { external_id: 'bf-1', totals: { total: 1 } },
          { external_id: 'bf-2', totals: { total: 2 }, status: 'shipped' },
        ],
      },
    });
    expect(batch.statusCode).toBe(200);
    const backfilled = batch.json().results.map((r: { id: string }) => r.id);
    // A live order afterwards: once its delivery is made, the backfilled ones had every chance.
    const live = (await order(s, { external_id: 'live-1', totals: { total: 3 } })).json().order.id;
    const rows = await settled(s.store.id, 1);
    await sleep(1000);
    expect(rows.map((r) => r.order_id)).toEqual([live]);
    expect(receiver.received.map((r) => JSON.parse(r.body).data.order.id)).toEqual([live]);
    const handedOver = await t.orm.em
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from order_events where order_id = any(?::uuid[]) and dispatch_count > 0`, [
        `{${backfilled.join(',')}}`,
      ]);
    expect(handedOver[0]!.n).toBe(0);
    await receiver.close();
  });
});

describe('after DELETE /webhooks/{id} nothing more is sent', () => {
  it('new orders produce no delivery to a deleted endpoint', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    const endpoint = (await register(s, receiver.url())).json();
    await order(s, { external_id: 'del-1', totals: { total: 1 } });
    await settled(s.store.id, 1);
    const removed = await t.request({ method: 'DELETE', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(s.admin) });
    expect(removed.json()).toEqual({ id: endpoint.id, deleted: true });
    const second = (await order(s, { external_id: 'del-2', totals: { total: 2 } })).json().order.id;
    await eventually(
      async () =>
        (await t.orm.em.fork().execute<{ d: Date | null }[]>(`select dispatched_at as d from order_events where order_id = ?`, [second]))[0]
          ?.d != null,
      20_000,
      'event handed over',
    );
    await sleep(1000);
    expect(receiver.received).toHaveLength(1);
    expect(await deliveriesOf(s.store.id)).toHaveLength(1);
    await receiver.close();
  });

  it('deliveries queued but not yet sent are cancelled, and can no longer be claimed', async () => {
    const receiver = await startReceiver();
    const s = await storeWithWebhooks();
    await register(s, receiver.url(), ['order.created']);
    const orderId = (await order(s, { external_id: 'queued-1', totals: { total: 1 } })).json().order.id;
    await settled(s.store.id, 1);
    // A second endpoint that no event reached yet, with a delivery waiting for it (as the sequencer leaves them).
    const late = (await register(s, receiver.url('/late'), ['order.cancelled'])).json();
    const em = t.orm.em.fork();
    const [event] = await em.execute<{ id: string }[]>(`select id from order_events where order_id = ?`, [orderId]);
    const queued = crypto.randomUUID();
    await em.execute(
      `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id) values (?, ?, ?, ?, 'order.created', ?)`,
      [queued, s.store.id, late.id, event!.id, orderId],
    );
    await t.request({ method: 'DELETE', url: `/api/v1/webhooks/${late.id}`, headers: bearer(s.admin) });
    const rows = await deliveriesOf(s.store.id);
    expect(rows.find((r) => r.id === queued)).toMatchObject({ status: 'cancelled', error: 'endpoint deleted' });
    expect(await claimDeliveries(t.orm.em.fork(), [queued], null)).toEqual([]);
    // Even a pending row that slipped in after the deletion is not claimed: it is cancelled instead.
    const slipped = crypto.randomUUID();
    await em.execute(
      `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, replay_of) values (?, ?, ?, ?, 'order.created', ?, ?)`,
      [slipped, s.store.id, late.id, event!.id, orderId, queued],
    );
    expect(await claimDeliveries(t.orm.em.fork(), [slipped], null)).toEqual([]);
    expect((await deliveriesOf(s.store.id)).find((r) => r.id === slipped)).toMatchObject({ status: 'cancelled' });
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    await receiver.close();
  });
});
