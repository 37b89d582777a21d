import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { workflowIds } from '../../workflows/catalog.js';
import { expireCheckoutBucket } from '../../services/checkout/expire.js';
import { addProduct, api, pathOf, postCart, SHOPPER, sql } from '../catalog/fixtures.js';

// CHECKOUT_TTL_SECONDS=2: the real checkout-expiry workflow on the real worker, with a short timer.
let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp({ CHECKOUT_TTL_SECONDS: '2' });
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

async function session(items: unknown[]) {
  const res = await api(t, s.secret).checkout(items);
  expect(res.statusCode, res.body).toBe(201);
  const { url, token, expires_at } = res.json();
  const [row] = await sql<{ id: string }>(t, 'select id from checkout_sessions where token_hash = ?', [hashCheckoutToken(token)]);
  return { url, token, expiresAt: expires_at as string, id: row!.id };
}
// 2 s sessions: buckets of 1 s, aligned to the epoch; a session belongs to the first boundary at or after its expires_at.
const bucketEnd = (expiresAt: string) => new Date(Math.ceil(Date.parse(expiresAt) / 1000) * 1000).toISOString();
/** The workflow's handle once the outbox relay has started it (the relay runs apart from the API). */
async function started(workflowId: string) {
  const handle = t.temporal.client.workflow.getHandle(workflowId);
  await eventually(
    () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    20_000,
    `${workflowId} started`,
  );
  return handle;
}
const statusOf = async (id: string) =>
  (await sql<{ status: string }>(t, 'select status from checkout_sessions where id = ?', [id]))[0]!.status;

describe('one checkout-expiry workflow per store and time bucket owns the sessions’ end', () => {
  it('expires_at is now + CHECKOUT_TTL_SECONDS', async () => {
    const p = await addProduct(t, s.store.id);
    const before = Date.now();
    const { expiresAt } = await session([{ product_id: p.id, quantity: 1 }]);
    expect(Date.parse(expiresAt) - before).toBeGreaterThan(1000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(3000);
  });

  it('sessions ending in the same bucket share one hand-off (one outbox row), and its one workflow expires them all, then forgets the bucket', async () => {
    const store = await createTestStore(t.orm);
    const p = await addProduct(t, store.store.id);
    // At once, as from several API processes: only the bucket's first insert hands the workflow over.
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => api(t, store.secret).checkout([{ product_id: p.id, quantity: 1 }])),
    );
    const perBucket = new Map<string, number>();
    for (const res of responses) {
      expect(res.statusCode, res.body).toBe(201);
      const end = bucketEnd(res.json().expires_at);
      perBucket.set(end, (perBucket.get(end) ?? 0) + 1);
    }
    expect(perBucket.size).toBeLessThan(responses.length);
    const rows = await sql<{
      workflow_id: string;
      action: string;
      workflow_type: string;
      args: unknown;
      search_attributes: unknown;
      summary: string;
    }>(
      t,
      `select workflow_id, action, workflow_type, args, search_attributes, summary from outbox where workflow_id like 'checkout-expiry/%' and search_attributes->>'StoreId' = ? order by id`,
      [store.store.id],
    );
    expect(rows.map((r) => r.workflow_id).sort()).toEqual(
      [...perBucket.keys()].sort().map((end) => workflowIds.checkoutExpiry(store.store.id, end)),
    );
    for (const [endsAt, sessions] of perBucket) {
      expect(rows.find((r) => r.workflow_id === workflowIds.checkoutExpiry(store.store.id, endsAt))).toEqual({
        workflow_id: workflowIds.checkoutExpiry(store.store.id, endsAt),
        action: 'start',
        workflow_type: 'checkoutExpiryWorkflow',
        args: [{ storeId: store.store.id, endsAt }],
        search_attributes: { StoreId: store.store.id },
        summary: `checkout sessions of store ${store.store.id} expiring by ${endsAt}`,
      });
      // The store is new: each bucket's workflow expires exactly the sessions of its bucket, not before its end.
      const handle = await started(workflowIds.checkoutExpiry(store.store.id, endsAt));
      expect(await handle.result()).toEqual({ expired: sessions });
      expect((await handle.describe()).closeTime!.getTime()).toBeGreaterThanOrEqual(Date.parse(endsAt));
      // Idempotent: the activity run again (a retry) expires nothing more.
      expect(await expireCheckoutBucket(t.orm.em.fork(), { storeId: store.store.id, endsAt })).toBe(0);
    }
    expect(await sql(t, `select 1 from checkout_sessions where store_id = ? and status <> 'expired'`, [store.store.id])).toEqual([]);
    expect(await sql(t, 'select 1 from checkout_expiry_buckets where store_id = ?', [store.store.id])).toEqual([]);
  });

  it('at the bucket’s end the workflow marks the open sessions expired in the database, and the cart page refuses them', async () => {
    const p = await addProduct(t, s.store.id, { stock: 3 });
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect(await statusOf(cart.id)).toBe('open');
    await eventually(async () => (await statusOf(cart.id)) === 'expired', 20_000, 'session expired by the workflow');
    const endsAt = bucketEnd(cart.expiresAt);
    const handle = t.temporal.client.workflow.getHandle(workflowIds.checkoutExpiry(s.store.id, endsAt));
    expect((await handle.result()).expired).toBeGreaterThanOrEqual(1);
    expect((await handle.describe()).searchAttributes.StoreId).toEqual([s.store.id]);
    const page = await t.request({ method: 'GET', url: pathOf(cart.url) });
    expect(page.statusCode).toBe(410);
    expect(page.body).not.toContain('<form');
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(410);
    expect(await sql(t, 'select 1 from orders where store_id = ?', [s.store.id])).toEqual([]);
    // The bucket is forgotten once done.
    expect(await sql(t, 'select 1 from checkout_expiry_buckets where store_id = ? and ends_at = ?', [s.store.id, endsAt])).toEqual([]);
  });

  it('a placed session is never expired: its bucket’s workflow runs, expires nothing and leaves it used; placing it signals nothing', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(303);
    const handle = await started(workflowIds.checkoutExpiry(s.store.id, bucketEnd(cart.expiresAt)));
    // The earlier tests waited for their buckets' ends, so this session is alone in its bucket.
    expect(await handle.result()).toEqual({ expired: 0 });
    expect(await statusOf(cart.id)).toBe('used');
    const handOffs = await sql<{ action: string }>(t, `select distinct action from outbox where workflow_id like ?`, [
      `checkout-expiry/${s.store.id}/%`,
    ]);
    expect(handOffs).toEqual([{ action: 'start' }]);
    expect((await t.request({ method: 'GET', url: `${pathOf(cart.url)}/confirmation` })).statusCode).toBe(200);
  });

  it('the cart refuses a session past its expires_at even before the workflow runs (expiry on read)', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    await sql(t, `update checkout_sessions set expires_at = now() - interval '1 second' where id = ?`, [cart.id]);
    expect(await statusOf(cart.id)).toBe('open');
    expect((await t.request({ method: 'GET', url: pathOf(cart.url) })).statusCode).toBe(410);
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(410);
  });
});
