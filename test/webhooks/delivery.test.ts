import { verify as verifyOctokit } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function storeWithWebhooks() {
  const s = await createTestStore(t.orm);
  const key = await import('../helpers/store.js').then((m) => m.addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] }));
  return { ...s, admin: key.key };
}

const register = (s: TestStore & { admin: string }, url: string, events?: string[]) =>
  t.request({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(s.admin), payload: { url, ...(events ? { events } : {}) } });
const order = (s: TestStore, payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload });

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
    expect(await verifyOctokit(secret, JSON.stringify(JSON.parse(hit!.body), null, 2), hit!.headers['x-service-signature'] as string)).toBe(false);
    // The Standard Webhooks scheme, verified by its own library.
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    const body = JSON.parse(hit!.body);
    expect(body).toMatchObject({ type: 'order.created', data: { order: { id: res.json().order.id, external_id: 'wh-1' } } });
    expect(hit!.headers['x-service-delivery']).toBeTruthy();
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
