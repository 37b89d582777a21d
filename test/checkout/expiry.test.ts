import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
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

describe('the checkout-expiry workflow owns the session’s life', () => {
  it('expires_at is now + CHECKOUT_TTL_SECONDS', async () => {
    const p = await addProduct(t, s.store.id);
    const before = Date.now();
    const { expiresAt } = await session([{ product_id: p.id, quantity: 1 }]);
    expect(Date.parse(expiresAt) - before).toBeGreaterThan(1000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(3000);
  });

  it('after the TTL the workflow marks the session expired in the database, and the cart page refuses it', async () => {
    const p = await addProduct(t, s.store.id, { stock: 3 });
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect(await statusOf(cart.id)).toBe('open');
    await eventually(async () => (await statusOf(cart.id)) === 'expired', 20_000, 'session expired by the workflow');
    const handle = t.temporal.client.workflow.getHandle(`checkout-expiry/${cart.id}`);
    expect(await handle.result()).toEqual({ outcome: 'expired' });
    const page = await t.request({ method: 'GET', url: pathOf(cart.url) });
    expect(page.statusCode).toBe(410);
    expect(page.body).not.toContain('<form');
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(410);
    expect(await sql(t, 'select 1 from orders where store_id = ?', [s.store.id])).toEqual([]);
  });

  it('placing the order signals the workflow: it ends placed and the session stays used after the TTL', async () => {
    const p = await addProduct(t, s.store.id);
    const cart = await session([{ product_id: p.id, quantity: 1 }]);
    expect((await postCart(t, cart.url, SHOPPER)).statusCode).toBe(303);
    const handle = t.temporal.client.workflow.getHandle(`checkout-expiry/${cart.id}`);
    await eventually(() => handle.describe().then((d) => d.status.name === 'COMPLETED', () => false), 20_000, 'workflow completed');
    expect(await handle.result()).toEqual({ outcome: 'placed' });
    const signalled = await sql<{ action: string; signal_name: string }>(t, 'select action, signal_name from outbox where workflow_id = ? order by id', [`checkout-expiry/${cart.id}`]);
    expect(signalled).toEqual([{ action: 'start', signal_name: null }, { action: 'signal_with_start', signal_name: 'checkoutPlaced' }]);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await statusOf(cart.id)).toBe('used');
    expect((await t.request({ method: 'GET', url: `${pathOf(cart.url)}/confirmation` })).statusCode).toBe(200);
  });
});
