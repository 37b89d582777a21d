// Fairness of webhook dispatch (docs/webhooks.md): 100+ stores whose endpoint takes the request and never
// answers keep receiving orders, and meanwhile a healthy store's delivery and an internal timer (checkout
// expiry) are not held up; the circuit breaker settles a dead endpoint's backlog unsent; and no
// (event, endpoint) pair is ever sent twice. The test worker runs with WEBHOOK_TIMEOUT_MS=2000,
// WEBHOOK_CIRCUIT_FAILURES=3, WEBHOOK_CIRCUIT_COOLDOWN_MS=2000 and WEBHOOK_CIRCUIT_MAX_WAIT_MS=5000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CIRCUIT_OPEN_ERROR } from '../../activities/webhooks/lane.js';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { workflowIds } from '../../workflows/catalog.js';
import { addProduct, api } from '../catalog/fixtures.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

const BAD_STORES = 110;
const ORDERS_PER_BAD_STORE = 4;

let t: TestApp;
let hanging: Awaited<ReturnType<typeof startReceiver>>;
let healthy: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp({ CHECKOUT_TTL_SECONDS: '2' });
  // Takes every request and never answers: each attempt lasts WEBHOOK_TIMEOUT_MS.
  hanging = await startReceiver(() => new Promise<void>(() => {}));
  healthy = await startReceiver();
});
afterAll(async () => {
  await hanging?.close();
  await healthy?.close();
  await t?.close();
});

const sql = <T>(text: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(text, params);

async function storeWithEndpoint(url: string) {
  const s = await createTestStore(t.orm, { plan: 'paid' });
  const admin = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
  const r = await t.request({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(admin),
    payload: { url, events: ['order.created'] },
  });
  expect(r.statusCode, r.body).toBe(201);
  const post = async (externalId: string) => {
    const o = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(admin),
      payload: { external_id: externalId, totals: { total: 1 } },
    });
    expect(o.statusCode, o.body).toBe(201);
    return o.json().order.id as string;
  };
  return { ...s, endpointId: r.json().id as string, post };
}

describe('stores whose endpoints hang cannot hold up other stores or internal timers', () => {
  it(`${BAD_STORES} stores with an endpoint that never answers keep getting orders; a healthy store's deliveries and a checkout expiry stay on time; the dead endpoints' backlogs are settled unsent, each pair at most once`, async () => {
    const bad: Awaited<ReturnType<typeof storeWithEndpoint>>[] = [];
    for (let n = 0; n < BAD_STORES; n++) bad.push(await storeWithEndpoint(hanging.url(`/bad-${n}`)));
    // One of them gets a burst: more than its endpoint's attempts in flight, so a backlog waits behind its circuit.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => bad[0]!.post(`burst-${i}`)));
    const good = await storeWithEndpoint(healthy.url('/good'));
    const timerStore = await createTestStore(t.orm);
    const product = await addProduct(t, timerStore.store.id);

    // The bad stores' orders, in rounds, while the healthy store and the timer are measured.
    const badOrders: string[] = [];
    const writing = (async () => {
      for (let round = 0; round < ORDERS_PER_BAD_STORE; round++) {
        for (let i = 0; i < bad.length; i += 10)
          badOrders.push(...(await Promise.all(bad.slice(i, i + 10).map((s) => s.post(`bad-${round}-${s.store.id}`)))));
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    await eventually(() => hanging.received.length >= BAD_STORES / 2, 60_000, 'the hanging endpoints hold attempts');

    // A checkout session with a 2 s TTL: its expiry is a Temporal timer on the same worker.
    const checkout = await api(t, timerStore.secret).checkout([{ product_id: product.id, quantity: 1 }]);
    expect(checkout.statusCode, checkout.body).toBe(201);
    const tokenHash = hashCheckoutToken(checkout.json().token);
    const expiresAt = Date.parse(checkout.json().expires_at);

    // The healthy store's orders: each delivered within a few seconds of its commit (generous: the machine is loaded).
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = healthy.received.length;
      const committed = Date.now();
      await good.post(`good-${i}`);
      await eventually(() => healthy.received.length > before, 30_000, `healthy delivery ${i}`);
      waits.push(healthy.received.at(-1)!.at - committed);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(Math.max(...waits), `healthy waits ${waits.join(', ')} ms`).toBeLessThan(5000);

    // The checkout session expired on time: within a few seconds of its end.
    await eventually(
      async () =>
        (await sql<{ status: string }>(`select status from checkout_sessions where token_hash = ?`, [tokenHash]))[0]?.status === 'expired',
      30_000,
      'checkout expiry',
    );
    expect(Date.now() - expiresAt).toBeLessThan(15_000);
    await writing;

    // Every bad delivery is settled: a few attempted (timed out), the rest settled unsent behind the open circuit.
    const badIds = bad.map((s) => s.store.id);
    await eventually(
      async () =>
        (
          await sql<{ n: number; planned: number }>(
            `select count(*) filter (where status in ('pending', 'sending'))::int as n, count(*) filter (where replay_of is null)::int as planned
               from webhook_deliveries where store_id in (?)`,
            [badIds],
          )
        ).every((r) => r.n === 0 && r.planned === badOrders.length + burst.length),
      90_000,
      'the dead endpoints’ backlogs planned and settled',
    );
    const rows = await sql<{ store_id: string; event_id: string; endpoint_id: string; status: string; error: string; workflow_id: string }>(
      `select store_id, event_id, endpoint_id, status, error, workflow_id from webhook_deliveries where store_id in (?) and replay_of is null`,
      [badIds],
    );
    expect(rows).toHaveLength(badOrders.length + burst.length);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['failed']));
    const settled = rows.filter((r) => r.error === CIRCUIT_OPEN_ERROR);
    // The burst's endpoint: 4 attempts time out, the circuit opens, one probe per cool-down, the rest settled unsent.
    expect(settled.filter((r) => r.endpoint_id === bad[0]!.endpointId).length, 'the burst settled unsent').toBeGreaterThanOrEqual(10);
    // Each names the dispatcher of its store's shard, as any attempt does.
    for (const r of settled) expect(r.workflow_id).toBe(workflowIds.storeWebhookDispatch(r.store_id));

    // Exactly once: no (event, endpoint) pair reached a receiver twice, and every unsettled delivery was attempted once.
    const sent = hanging.received.map((r) => `${r.path} ${r.headers['webhook-id'] as string}`);
    expect(new Set(sent).size).toBe(sent.length);
    expect(sent.length).toBeLessThanOrEqual(rows.length - settled.length);
  }, 240_000);
});
