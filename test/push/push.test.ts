import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepCutOffDeliveries } from '../../services/housekeeping/jobs.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';
import { PageClient } from '../dashboard/client.js';
import { orderBody, ordersApi } from '../orders/fixtures.js';
import { decryptPush, startPushService, subscriberKeys, verifyVapid } from './push-service.js';

let t: TestApp;
let service: Awaited<ReturnType<typeof startPushService>>;
beforeAll(async () => {
  t = await createTestApp();
  service = await startPushService((req) => (req.path.includes('gone') ? 410 : 201));
});
afterAll(async () => {
  await service.close();
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An owner signed in to the dashboard with a store, an orders key, and the notifications page's VAPID key. */
async function ownerWithStore() {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore();
  const page = await c.get(`/dashboard/stores/${storeId}/notifications`);
  expect(page.statusCode).toBe(200);
  const vapidKey = /data-key="([A-Za-z0-9_-]+)"/.exec(page.body)![1]!;
  const key = await addKey(t.orm, storeId, { kind: 'secret' });
  return { c, storeId, vapidKey, orders: ordersApi(t, key.key), from: `/dashboard/stores/${storeId}/notifications` };
}

async function subscribe(o: Awaited<ReturnType<typeof ownerWithStore>>, endpoint: string) {
  const keys = subscriberKeys();
  const res = await o.c.post(
    `/dashboard/stores/${o.storeId}/push-subscriptions`,
    { endpoint, p256dh: keys.p256dh, auth: keys.authText },
    // As the page script's fetch() sends it: a URLSearchParams body, with the origin of the page.
    { from: o.from, headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', origin: t.config.publicUrl } },
  );
  return { res, keys };
}

const messagesOf = (orderId: string) =>
  t.orm.em
    .fork()
    .execute<{ channel: string; status: string; detail: string }[]>(
      `select channel, status, detail from order_messages where order_id = ?`,
      [orderId],
    );
const outboxFor = (workflowId: string) =>
  t.orm.em.fork().execute<{ id: string }[]>(`select id from outbox where workflow_id = ?`, [workflowId]);

describe('mobile push of new orders (Web Push: VAPID, aes128gcm)', () => {
  it('a new order reaches each subscribed device once, encrypted for it and signed with the VAPID key the page gave', async () => {
    const o = await ownerWithStore();
    const endpoint = service.endpoint(`dev-${o.storeId}`);
    const { res, keys } = await subscribe(o, endpoint);
    expect(res.statusCode).toBe(201);

    const created = await o.orders.post(orderBody({ number: '#5001', totals: { total: 1250.5, shipping: 0, discount: 0 } }));
    const answered = Date.now();
    expect(created.statusCode).toBe(201);
    const orderId = created.json().order.id as string;
    const mine = () => service.received.filter((r) => r.path === new URL(endpoint).pathname);
    await eventually(() => mine().length === 1, 20_000, 'the push');
    const push = mine()[0]!;
    console.log(`push: arrived ${push.at - answered} ms after the order's 201 (outbox relay, workflow start, activity, encryption)`);

    const claims = verifyVapid(push.headers.authorization, service.origin, o.vapidKey);
    expect(claims.sub).toMatch(/^mailto:/); // PUBLIC_URL is http here; an https PUBLIC_URL is the subject otherwise
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(push.headers.ttl)).toBeGreaterThan(0);
    const payload = JSON.parse(decryptPush(push.body, keys.ecdh, keys.auth));
    expect(payload).toMatchObject({ title: 'New order #5001', order_id: orderId, url: `/dashboard/stores/${o.storeId}/orders/${orderId}` });
    expect(payload.body).toContain('1,250.50 MAD');

    await eventually(async () => (await messagesOf(orderId))[0]?.status === 'sent', 10_000, 'the recorded outcome');
    expect((await messagesOf(orderId))[0]).toMatchObject({ channel: 'push', detail: 'delivered to 1 of 1 device(s)' });
    const detail = await o.c.get(`/dashboard/stores/${o.storeId}/orders/${orderId}`);
    expect(detail.body).toContain('Phone notification (owners)');
    expect(detail.body).toContain('delivered to 1 of 1 device(s)');

    // An update of the same order is not a new order: no second push, and one hand-off only.
    expect(
      (await o.orders.post({ ...orderBody({ number: '#5001' }), external_id: created.json().order.external_id, status: 'confirmed' }))
        .statusCode,
    ).toBe(200);
    await sleep(2500);
    expect(mine()).toHaveLength(1);
    expect(await outboxFor(`order-push/${orderId}`)).toHaveLength(1);
  });

  it('backfill orders never push, and neither do orders of a store with no device subscribed', async () => {
    const o = await ownerWithStore();
    const endpoint = service.endpoint(`backfill-${o.storeId}`);
    expect((await subscribe(o, endpoint)).res.statusCode).toBe(201);
    const batch = await o.orders.batch([orderBody(), orderBody()], true);
    expect(batch.statusCode).toBe(200);
    const ids = (batch.json().results as { id: string; action: string }[]).map((r) => (expect(r.action).toBe('created'), r.id));
    const lone = await ownerWithStore();
    const unsubscribed = (await lone.orders.post(orderBody())).json().order.id as string;
    await sleep(3000);
    expect(service.received.filter((r) => r.path === new URL(endpoint).pathname)).toHaveLength(0);
    for (const id of [...ids, unsubscribed]) {
      expect(await outboxFor(`order-push/${id}`)).toHaveLength(0);
      expect(await messagesOf(id)).toHaveLength(0);
    }
  });

  it('turning notifications off on a device stops its pushes', async () => {
    const o = await ownerWithStore();
    const endpoint = service.endpoint(`off-${o.storeId}`);
    expect((await subscribe(o, endpoint)).res.statusCode).toBe(201);
    const off = await o.c.post(`/dashboard/stores/${o.storeId}/push-subscriptions/delete`, { endpoint }, { from: o.from });
    expect(off.statusCode).toBe(200);
    expect(off.body).toBe('unsubscribed');
    const id = (await o.orders.post(orderBody())).json().order.id as string;
    await sleep(2500);
    expect(service.received.filter((r) => r.path === new URL(endpoint).pathname)).toHaveLength(0);
    expect(await outboxFor(`order-push/${id}`)).toHaveLength(0);
  });

  it('a device the push service reports gone (410) is forgotten, and the outcome says so', async () => {
    const o = await ownerWithStore();
    expect((await subscribe(o, service.endpoint(`gone-${o.storeId}`))).res.statusCode).toBe(201);
    const posted = Date.now();
    const id = (await o.orders.post(orderBody())).json().order.id as string;
    await eventually(async () => (await messagesOf(id))[0]?.status === 'failed', 20_000, 'the failed outcome');
    const gone = service.received.find((r) => r.path === `/push/gone-${o.storeId}`)!;
    console.log(`push: a later one arrived ${gone.at - posted} ms after the order's POST`);
    expect((await messagesOf(id))[0]!.detail).toMatch(/delivered to 0 of 1 device\(s\); answered 410; 1 gone, forgotten/);
    const left = await t.orm.em.fork().execute(`select 1 from push_subscriptions where store_id = ?`, [o.storeId]);
    expect(left).toHaveLength(0);
  });
});

describe('a device belongs to an owner of the store', () => {
  it('an owner who stops being a member of the store gets no more of its orders on their devices', async () => {
    const o = await ownerWithStore();
    const endpoint = service.endpoint(`member-${o.storeId}`);
    expect((await subscribe(o, endpoint)).res.statusCode).toBe(201);
    // No page removes a member yet: an operator does it in the database, and the device goes with it.
    await t.orm.em.fork().execute(`delete from owner_stores where store_id = ?`, [o.storeId]);
    expect(await t.orm.em.fork().execute(`select 1 from push_subscriptions where store_id = ?`, [o.storeId])).toHaveLength(0);
    const id = (await o.orders.post(orderBody())).json().order.id as string;
    await sleep(2500);
    expect(service.received.filter((r) => r.path === new URL(endpoint).pathname)).toHaveLength(0);
    expect(await outboxFor(`order-push/${id}`)).toHaveLength(0);
  });
});

describe('subscriptions follow the outbound-address rules of webhooks', () => {
  it('refuses endpoints that are private, not https or malformed, and keys that are not a P-256 point', async () => {
    const o = await ownerWithStore();
    for (const endpoint of ['http://10.0.0.1/push', 'https://private.example/push', 'http://127.0.0.2:9/push', 'not a url']) {
      const { res } = await subscribe(o, endpoint);
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.body).toMatch(/^endpoint /);
    }
    const bad = await o.c.post(
      `/dashboard/stores/${o.storeId}/push-subscriptions`,
      { endpoint: service.endpoint('x'), p256dh: 'AAAA', auth: subscriberKeys().authText },
      { from: o.from },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/p256dh/);
  });

  it('needs the owner session and the page form token', async () => {
    const o = await ownerWithStore();
    const keys = subscriberKeys();
    const stranger = new PageClient(t);
    await stranger.signUp();
    const other = await stranger.post(
      `/dashboard/stores/${o.storeId}/push-subscriptions`,
      { endpoint: service.endpoint('s'), p256dh: keys.p256dh, auth: keys.authText },
      { from: '/dashboard' },
    );
    expect(other.statusCode).toBe(404);
    const noToken = await o.c.post(`/dashboard/stores/${o.storeId}/push-subscriptions`, {
      endpoint: service.endpoint('s'),
      p256dh: keys.p256dh,
      auth: keys.authText,
    });
    expect(noToken.statusCode).toBe(403);
  });
});

describe('an attempt cut off by a dead worker', () => {
  it('is settled as failed by the delivery sweep after 3 minutes, and the order page says so', async () => {
    const o = await ownerWithStore();
    const id = (await o.orders.post(orderBody())).json().order.id as string;
    const em = t.orm.em.fork();
    await em.execute(
      `insert into order_messages (store_id, order_id, channel, occasion, status, created_at) values (?, ?, 'push', 'created', 'sending', now() - interval '4 minutes')`,
      [o.storeId, id],
    );
    expect(await sweepCutOffDeliveries(em)).toBeGreaterThanOrEqual(1);
    expect((await messagesOf(id))[0]).toMatchObject({ status: 'failed', detail: 'the attempt was cut off (worker stopped); not retried' });
    expect((await o.c.get(`/dashboard/stores/${o.storeId}/orders/${id}`)).body).toContain('the attempt was cut off');
  });
});

describe('the VAPID key pair', () => {
  it('is generated once and stored with its private key sealed by SECRETS_KEY', async () => {
    const o = await ownerWithStore();
    const again = await ownerWithStore();
    expect(again.vapidKey).toBe(o.vapidKey);
    const [row] = await t.orm.em.fork().execute<{ public_key: string; private_key_sealed: string }[]>(`select * from vapid_keys`);
    expect(row!.public_key).toBe(o.vapidKey);
    expect(row!.private_key_sealed).toMatch(/^v1\./);
  });
});
