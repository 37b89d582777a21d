import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPushedUpdates, WebhookVerificationError } from '@store-commerce/plugin-kit';
import { timestampedSignature } from '../../domain/webhook-signature.js';
import { bearer, createListeningTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { workflowIds } from '../../workflows/catalog.js';
import { connectedPlugin, mirroredOrder } from './fixtures.js';

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp();
});
afterAll(() => t.close());

const patch = (key: string, id: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(key), payload });
const updatesOf = (connectionId: string) =>
  t.orm.em
    .fork()
    .execute<{ id: string; state: string; status: string | null; push_attempts: number; push_failed: boolean }[]>(
      `select id, state, status, push_attempts, push_failed from connection_updates where connection_id = ? order by created_at`,
      [connectionId],
    );

describe('updates go back to the shop by push', () => {
  it('a service-side shipment is pushed, verified by the plugin, applied once, and acknowledged by the reply', async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'P-1');
    const res = await patch(c.secret, id, {
      status: 'shipped',
      tracking: { number: 'AWB123', courier: 'Speedy', url: 'https://track.example/AWB123' },
      comment: 'left the depot',
    });
    expect(res.statusCode, res.body).toBe(200);
    await eventually(() => c.shop.applyCount === 1, 45_000, 'the push');
    const order = c.shop.orders.get('P-1')!;
    expect(order).toMatchObject({
      status: 'shipped',
      tracking: { number: 'AWB123', courier: 'Speedy', url: 'https://track.example/AWB123' },
      notes: ['left the depot'],
    });
    expect(order.trackingPageUrl).toBe(res.json().order.tracking.page_url);
    expect(c.plugin.pushes.every((p) => p.verified)).toBe(true);
    await eventually(async () => (await updatesOf(c.connectionId))[0]?.state === 'applied', 10_000, 'the ack');
    // Acknowledged: never sent again, by push or pull.
    expect((await c.plugin.client.pullUpdates()).body.updates).toEqual([]);
    expect(c.shop.outgoingChanges).toEqual([]);
  });

  it('a change made through the connection itself never creates an update (no echo)', async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'P-2');
    expect((await patch(c.apiKey, id, { status: 'cancelled' })).statusCode).toBe(200);
    expect((await patch(c.apiKey, id, { tracking: { number: 'X1' } })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await updatesOf(c.connectionId)).toEqual([]);
  });

  it('a cancellation made on the service side is not an update (cancelling belongs to the platform)', async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'P-3');
    expect((await patch(c.secret, id, { status: 'cancelled' })).statusCode).toBe(409);
    expect(await updatesOf(c.connectionId)).toEqual([]);
  });

  it('reaches the plugin after its receiver was down for a while (retried with back-off)', async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'P-4');
    c.plugin.downWith = 503;
    await patch(c.secret, id, { status: 'shipped' });
    await eventually(async () => (await updatesOf(c.connectionId))[0]?.push_attempts === 1, 45_000, 'a failed attempt');
    c.plugin.downWith = null;
    await eventually(() => c.shop.applyCount === 1, 45_000, 'the retried push');
    // The plugin applies before it answers; the worker records the answer a moment later.
    await eventually(async () => (await updatesOf(c.connectionId))[0]?.state === 'applied', 10_000, 'the push answer recorded');
    const [update] = await updatesOf(c.connectionId);
    expect(update!.state).toBe('applied');
    expect(update!.push_attempts).toBe(1);
  });
});

describe('a busy push is woken through PostgreSQL, an idle one through Temporal', () => {
  const pushWakeUps = async (connectionId: string) =>
    (
      await t.orm.em
        .fork()
        .execute<{ n: number }[]>(`select count(*)::int as n from outbox where workflow_id = ?`, [workflowIds.connectionPush(connectionId)])
    )[0]!.n;

  it('while the push runs, a new update queues no hand-off; once idle, one; both reach the shop', async () => {
    const c = await connectedPlugin(t);
    const a = await mirroredOrder(c, 'W-1');
    const b = await mirroredOrder(c, 'W-2');
    const lane = workflowIds.connectionPush(c.connectionId);
    // Pretend a push run holds the lane (as a running update push does) but pushes nothing.
    await t.orm.em
      .fork()
      .execute(
        `insert into lanes (workflow_id, active_until) values (?, 'infinity') on conflict (workflow_id) do update set active_until = 'infinity'`,
        [lane],
      );
    const before = await pushWakeUps(c.connectionId);
    await patch(c.secret, a, { status: 'shipped' });
    expect(await pushWakeUps(c.connectionId)).toBe(before);
    await t.orm.em.fork().execute(`update lanes set active_until = '-infinity' where workflow_id = ?`, [lane]);
    await patch(c.secret, b, { status: 'shipped' });
    expect(await pushWakeUps(c.connectionId)).toBe(before + 1);
    await eventually(() => c.shop.applyCount === 2, 45_000, 'both updates pushed');
    expect([...c.shop.orders.values()].filter((o) => o.status === 'shipped').length).toBe(2);
  });
});

describe('pull and ack', () => {
  it('a pull-only plugin gets waiting updates oldest first, and ack counts only its own waiting ids', async () => {
    const c = await connectedPlugin(t, { push: false });
    const a = await mirroredOrder(c, 'L-1');
    const b = await mirroredOrder(c, 'L-2');
    await patch(c.secret, a, { status: 'shipped' });
    await patch(c.secret, b, { tracking: { number: 'T-2' } });
    const pulled = await c.plugin.client.pullUpdates();
    expect(pulled.body.updates.map((u) => u.external_id)).toEqual(['L-1', 'L-2']);
    expect(pulled.body.updates[1]).toMatchObject({ status: null, tracking: { number: 'T-2' } });
    const [first, second] = pulled.body.updates;
    const ack = await c.plugin.client.ack(
      [first!.id, first!.id, '00000000-0000-0000-0000-000000000000', 'not-an-id'],
      [{ id: second!.id, error: 'order locked' }],
    );
    expect(ack.body).toEqual({ acknowledged: 2 });
    expect((await c.plugin.client.ack([first!.id], [])).body).toEqual({ acknowledged: 0 });
    expect((await c.plugin.client.pullUpdates()).body.updates).toEqual([]);
  });

  it('another connection cannot acknowledge these updates', async () => {
    const c = await connectedPlugin(t, { push: false });
    const other = await connectedPlugin(t, { push: false });
    await patch(c.secret, await mirroredOrder(c, 'O-1'), { status: 'shipped' });
    const [update] = (await c.plugin.client.pullUpdates()).body.updates;
    expect((await other.plugin.client.ack([update!.id], [])).body).toEqual({ acknowledged: 0 });
    expect((await c.plugin.client.pullUpdates()).body.updates).toHaveLength(1);
  });

  it('a newer update replaces a waiting one for the same order', async () => {
    const c = await connectedPlugin(t, { push: false });
    const id = await mirroredOrder(c, 'N-1');
    await patch(c.secret, id, { tracking: { number: 'T-1' } });
    await patch(c.secret, id, { status: 'shipped' });
    const { updates } = (await c.plugin.client.pullUpdates()).body;
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ status: 'shipped', tracking: { number: 'T-1' } });
  });

  it('limit is 1 to 200 (default 50)', async () => {
    const c = await connectedPlugin(t, { push: false });
    for (const limit of ['0', '201', 'x']) {
      const res = await t.request({ method: 'GET', url: `/api/v1/connection/updates?limit=${limit}`, headers: bearer(c.apiKey) });
      expect(res.statusCode).toBe(400);
    }
  });
});

describe('the reference plugin checks every push (the SDK check the kit re-exports)', () => {
  const body = JSON.stringify({ updates: [] });
  const secret = 'whsec_test';
  const check = (ts: number, signedWith: string, rawBody = body) =>
    verifyPushedUpdates({
      secret,
      rawBody,
      headers: { 'x-service-timestamp': String(ts), 'x-service-signature': timestampedSignature(signedWith, ts, body) },
    });
  it('accepts a fresh, correctly signed push', async () => {
    await expect(check(Math.floor(Date.now() / 1000), secret)).resolves.toEqual({ updates: [] });
  });
  it('rejects a timestamp more than 5 minutes off, a wrong signature, and a re-serialised body', async () => {
    const ts = Math.floor(Date.now() / 1000);
    await expect(check(ts - 301, secret)).rejects.toThrow(WebhookVerificationError);
    await expect(check(ts, 'whsec_other')).rejects.toThrow(WebhookVerificationError);
    await expect(check(ts, secret, JSON.stringify({ updates: [] }, null, 1))).rejects.toThrow(WebhookVerificationError);
  });
});
