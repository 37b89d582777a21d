import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { workflowIds } from '../../workflows/definitions.js';
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
const statusOf = async (id: string) => (await sql<{ status: string }>(t, 'select status from checkout_sessions where id = ?', [id]))[0]!.status;

describe('one checkout-expiry workflow per store and time bucket owns the sessions’ end', () => {
  it('expires_at is now + CHECKOUT_TTL_SECONDS', async () => {
    const p = await addProduct(t, s.store.id);
    const before = Date.now();
    const { expiresAt } = await session([{ product_id: p.id, quantity: 1 }]);
    expect(Date.parse(expiresAt) - before).toBeGreaterThan(1000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(3000);
  });

  it('sessions ending in the same bucket share one hand-off: one outbox row and one workflow checkout-expiry/<store id>/<bucket end>', async () => {
    const store = await createTestStore(t.orm);
    const p = await addProduct(t, store.store.id);
    const carts = [];
    for (let i = 0; i < 5; i++) {
      const res = await api(t, store.secret).checkout([{ product_id: p.id, quantity: 1 }]);
      expect(res.statusCode, res.body).toBe(201);
      carts.push(res.json() as { expires_at: string });
    }
    // 2 s sessions: buckets of 1 s, aligned to the epoch.
    const buckets = new Set(carts.map((c) => new Date(Math.ceil(Date.parse(c.expires_at) / 1000) * 1000).toISOString()));
    const rows = await sql<{ workflow_id: string; workflow_type: string; args: unknown; search_attributes: unknown }>(
      t,
      `select workflow_id, workflow_type, args, search_attributes from outbox where search_attributes->>'StoreId' = ? order by id`,
      [store.store.id],
    );
    expect(rows.map((r) => r.workflow_id).sort()).toEqual([...buckets].map((end) => workflowIds.checkoutExpiry(store.store.id, end)).sort());
    expect(rows.length).toBeLessThan(carts.length);
    for (const r of rows) {
      const endsAt = r.workflow_id.split('/').at(-1)!;
      expect(r).toMatchObject({ workflow_type: 'checkoutExpiryWorkflow', args: [{ storeId: store.store.id, endsAt }], search_attributes: { StoreId: store.store.id } });
    }
  });

  it('at the bucket’s end the workflow marks the open sessions expired in the database, and the cart page refuses them', async () => {
    const p = await addProduct(t, s.store.id, { stock: 3 });
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect(await statusOf(cart.id)).toBe('open');
    await eventually(async () => (await statusOf(cart.id)) === 'expired', 20_000, 'session expired by the workflow');
    const endsAt = new Date(Math.ceil(Date.parse(cart.expiresAt) / 1000) * 1000).toISOString();
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

  it('a placed session is never expired: it stays used after its bucket’s workflow ran, and placing it signals nothing', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(303);
    const endsAt = new Date(Math.ceil(Date.parse(cart.expiresAt) / 1000) * 1000).toISOString();
    const handle = t.temporal.client.workflow.getHandle(workflowIds.checkoutExpiry(s.store.id, endsAt));
    await eventually(() => handle.describe().then((d) => d.status.name === 'COMPLETED', () => false), 20_000, 'the bucket’s workflow completed');
    expect(await statusOf(cart.id)).toBe('used');
    expect(await sql(t, `select 1 from outbox where signal_name is not null and search_attributes->>'StoreId' = ?`, [s.store.id])).toEqual([]);
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
