// The production topology: two `start:api` and two `start:worker` processes (built, `node dist/…`) on one
// PostgreSQL and one Temporal, the APIs behind a round-robin proxy that routes on /readyz. What holds
// for one process must hold for the pair: limits, exactly-once ordered deliveries, a worker lost to
// SIGKILL, and APIs replaced one at a time under load without a failed request.
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../config/free-port.js';
import { openOrm } from '../../db/orm.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import { startInOneRateWindow, RATE_WINDOW_WAIT_MS } from '../helpers/rate-window.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { startApi, startWorkerProcess, sleep, stop, waitUntil, type Proc } from './processes.js';
import { startProxy } from './proxy.js';

const say = (line: string) => console.log(`[topology] ${line}`);
let orm: MikroORM;
let temporal: Client;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const ports: number[] = [];
const apis: Proc[] = [];
const workers: Proc[] = [];
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

beforeAll(async () => {
  const t = inject('topology');
  orm = await openOrm({ databaseUrl: t.databaseUrl, poolMax: 4 });
  temporal = new Client({ connection: await Connection.connect({ address: t.temporalAddress }), namespace: 'default' });
  ports.push(await freePort(), await freePort());
  proxy = await startProxy(ports);
  const started = Date.now();
  apis.push(...(await Promise.all(ports.map((port, i) => startApi(`api-${i + 1}`, port, proxy.url)))));
  workers.push(...(await Promise.all([startWorkerProcess('worker-1'), startWorkerProcess('worker-2')])));
  await waitUntil(() => proxy.backends.every((b) => b.ready), 10_000, 'the proxy sees both APIs ready');
  say(`2 APIs and 2 workers up in ${Date.now() - started} ms`);
}, 120_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].map(stop));
  await proxy?.close();
  for (const r of receivers) await r.close();
  await temporal?.connection.close();
  await orm?.close();
}, 60_000);

const api = (i: number) => `http://127.0.0.1:${ports[i % 2]}`;
const call = (base: string, method: string, path: string, key: string, body?: unknown) =>
  fetch(`${base}/api/v1${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});
const rows = <T>(sql: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await rows<{ n: string }>(sql, params))[0]!.n);

interface Hook {
  endpoint: number;
  event: string;
  type: string;
  order: string;
  delivery: string;
}
const hooksOf = (r: Awaited<ReturnType<typeof startReceiver>>, endpoint: number): Hook[] =>
  r.received.map((x) => {
    const body = JSON.parse(x.body) as { id: string; type: string; data: { order: { id: string } } };
    return { endpoint, event: body.id, type: body.type, order: body.data.order.id, delivery: String(x.headers['x-service-delivery']) };
  });

/** A store with E webhook endpoints on loopback receivers (answering after delayMs), registered through both APIs. */
async function storeWithEndpoints(endpoints: number, delayMs = 0) {
  // Paid: 300 requests a minute per key, so the writes of a test never meet the limit.
  const s = await createTestStore(orm, { plan: 'paid' });
  const key = (await addKey(orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
  const hooks = [];
  for (let e = 0; e < endpoints; e++) {
    const r = await startReceiver(async (_req, res) => {
      if (delayMs) await sleep(delayMs);
      res.end('ok');
    });
    receivers.push(r);
    hooks.push(r);
    const res = await call(api(e), 'POST', '/webhooks', key, { url: r.url(`/hook-${e}`) });
    expect(res.status, await res.text()).toBe(201);
  }
  return { storeId: s.store.id, key, hooks };
}

/** Creates order n through one API, then confirms and ships it through the other: five events, in order. */
async function orderLife(key: string, n: number, prefix: string) {
  const created = await call(api(n), 'POST', '/orders', key, { external_id: `${prefix}-${n}`, totals: { total: 10 + n } });
  expect(created.status, await created.clone().text()).toBe(201);
  const id = ((await created.json()) as { order: { id: string } }).order.id;
  for (const [i, change] of [{ status: 'confirmed' }, { status: 'shipped', tracking: { number: `${prefix}-T${n}` } }].entries()) {
    const res = await call(api(n + i + 1), 'PATCH', `/orders/${id}`, key, change);
    expect(res.status, await res.clone().text()).toBe(200);
  }
  return id;
}

describe('rate limits are one count across both APIs', () => {
  it(
    '100 requests with a 60/min key split over both APIs: exactly 60 × 200 and 40 × 429',
    async () => {
      await startInOneRateWindow(orm, 10_000);
      const s = await createTestStore(orm);
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => call(api(i), 'GET', '/me', s.secret).then(async (r) => (await r.arrayBuffer(), r.status))),
      );
      expect(tally(statuses)).toEqual({ 200: 60, 429: 40 });
      // Each API answered both kinds: the count is shared, not split per process.
      const perApi = [0, 1].map((a) => tally(statuses.filter((_, i) => i % 2 === a)));
      say(`rate limit: API 1 ${JSON.stringify(perApi[0])}, API 2 ${JSON.stringify(perApi[1])}`);
    },
    RATE_WINDOW_WAIT_MS + 30_000,
  );
});

describe('deliveries from orders written through both APIs, with both workers running', () => {
  it('N orders × E endpoints: every event reaches every endpoint exactly once, each order’s events in order', async () => {
    const N = 30;
    const E = 3;
    const { storeId, key, hooks } = await storeWithEndpoints(E);
    const started = Date.now();
    const orderIds = await Promise.all(Array.from({ length: N }, (_, n) => orderLife(key, n, 'topo')));
    const events = await rows<{ id: string; order_id: string; type: string }>(
      `select id, order_id, type from order_events where store_id = ? and not backfill order by created_at, id`,
      [storeId],
    );
    expect(events.filter((e) => e.type === 'order.created')).toHaveLength(N);
    await waitUntil(() => hooks.every((r) => r.received.length >= events.length), 90_000, `${events.length} events at each endpoint`);
    const tookMs = Date.now() - started;
    await sleep(1500); // anything sent twice would arrive now

    const got = hooks.flatMap((r, e) => hooksOf(r, e));
    expect(got).toHaveLength(events.length * E);
    expect(new Set(got.map((h) => `${h.endpoint}/${h.event}`)).size).toBe(events.length * E);
    expect(got.filter((h) => h.type === 'order.created')).toHaveLength(N * E);
    // Per order and endpoint, the events arrived in the order they were written.
    for (let e = 0; e < E; e++)
      for (const id of orderIds)
        expect(
          got.filter((h) => h.endpoint === e && h.order === id).map((h) => h.event),
          `endpoint ${e}, order ${id}`,
        ).toEqual(events.filter((ev) => ev.order_id === id).map((ev) => ev.id));
    say(`${N} orders (${events.length} events) × ${E} endpoints = ${got.length} deliveries, none twice, in ${tookMs} ms`);
  }, 150_000);
});

describe('APIs replaced one at a time under steady load', () => {
  it('SIGTERM drains (/readyz 503, in-flight finished, exit 0) and the proxy’s clients see no failed request', async () => {
    const s = await createTestStore(orm, { plan: 'paid' });
    // 300 requests a minute per paid key; the clients pause 30 ms between requests (at most ~130/s together),
    // so even a fast machine spreads under 100 requests a minute over each of 40 keys: no limit is met.
    const keys = await Promise.all(Array.from({ length: 40 }, () => addKey(orm, s.store.id, { kind: 'secret' }).then((k) => k.key)));
    const failures: string[] = [];
    const served: number[] = [];
    let running = true;
    let sent = 0;
    const client = async (c: number) => {
      for (let i = 0; running; i++) {
        const key = keys[(c * 7 + i) % keys.length]!;
        const write = i % 3 === 0;
        sent++;
        try {
          const res = write
            ? await call(proxy.url, 'POST', '/orders', key, { external_id: `roll-${c}-${i}`, totals: { total: 1 + i } })
            : await call(proxy.url, 'GET', i % 3 === 1 ? '/me' : '/orders?limit=5', key);
          const text = await res.text();
          if (res.status >= 300) failures.push(`${res.status} ${text.slice(0, 200)}`);
          else served.push(res.status);
        } catch (err) {
          failures.push(`no answer: ${(err as Error).message}`);
        }
        await sleep(30);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));

    for (const i of [0, 1]) {
      await sleep(1500);
      const old = apis[i]!;
      const before = served.length;
      old.child.kill('SIGTERM');
      // Draining: not ready any more, yet still serving what reaches it directly.
      await waitUntil(
        async () =>
          (await fetch(`${api(i)}/readyz`)
            .then((r) => r.status)
            .catch(() => 0)) === 503,
        2000,
        `api-${i + 1} /readyz 503`,
      );
      expect((await call(api(i), 'GET', '/me', keys[0]!)).status).toBe(200);
      // An upload still arriving when the listener closes is finished, not cut.
      const slow = slowUpload(api(i), keys[1]!, `roll-slow-${i}`);
      expect(await old.exited).toBe(0);
      expect(await slow).toBe(201);
      say(`api-${i + 1} drained and exited 0 (${served.length - before} requests served meanwhile)`);
      apis[i] = await startApi(`api-${i + 1}-new`, ports[i]!, proxy.url);
      await waitUntil(() => proxy.backends[i]!.ready, 5000, `the proxy routes to api-${i + 1} again`);
    }
    await sleep(1500);
    running = false;
    await load;

    expect(failures).toEqual([]);
    expect(served.length).toBe(sent);
    expect(served.length).toBeGreaterThan(150);
    for (const b of proxy.backends) expect(b.seen[503], `the proxy saw port ${b.port} draining`).toBeGreaterThan(0);
    // The drain, not the proxy's fallback, kept them whole: no request was sent to a closed listener.
    expect(proxy.retriedDials()).toBe(0);
    say(`rolling restart: ${served.length} requests, 0 failed; ${proxy.retriedDials()} refused connection(s) retried by the proxy`);
  }, 120_000);
});

/** POSTs an order whose body trickles in over ~2.5 s, starting inside the drain, so it is in flight when the listener closes. */
async function slowUpload(base: string, key: string, externalId: string): Promise<number> {
  const body = JSON.stringify({ external_id: externalId, totals: { total: 5 } }, null, 8);
  const parts = [body.slice(0, 10), body.slice(10, 20), body.slice(20)];
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const part = parts.shift();
      if (part === undefined) return controller.close();
      controller.enqueue(new TextEncoder().encode(part));
      await sleep(1200);
    },
  });
  await sleep(1000);
  const res = await fetch(`${base}/api/v1/orders`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  await res.arrayBuffer();
  return res.status;
}

describe('a worker killed with SIGKILL', () => {
  it('the other worker finishes its work: every delivery planned, none pending, none sent twice', async () => {
    const STORES = 4;
    const ORDERS = 20;
    const stores = await Promise.all(Array.from({ length: STORES }, () => storeWithEndpoints(1, 250)));
    // A burst on every store: each store's lane runs on one of the workers.
    await Promise.all(
      stores.flatMap((s) =>
        Array.from({ length: ORDERS }, (_, n) =>
          call(api(n), 'POST', '/orders', s.key, { external_id: `kill-${n}`, totals: { total: 3 + n } }).then((r) =>
            expect(r.status).toBe(201),
          ),
        ),
      ),
    );
    // Find a worker that runs a lane with deliveries in flight, by the identity Temporal reports (pid@host).
    let victim: Proc | undefined;
    await waitUntil(
      async () => {
        for (const s of stores) {
          const d = await temporal.workflow
            .getHandle(workflowIds.storeWebhookDispatch(s.storeId))
            .describe()
            .catch(() => undefined);
          const identity = d?.raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
          victim = workers.find((w) => identity.startsWith(`${w.child.pid}@`));
          if (victim && s.hooks[0]!.received.length > 0) return true;
        }
        return false;
      },
      30_000,
      'a lane running on a worker with deliveries under way',
    );
    const survivor = workers.find((w) => w !== victim)!;
    victim!.child.kill('SIGKILL');
    expect(await victim!.exited).toBe(null);
    const killedAt = Date.now();
    const receivedAtKill = stores.reduce((n, s) => n + s.hooks[0]!.received.length, 0);
    const storeIds = stores.map((s) => s.storeId);
    const inFlight = await count(`select count(*) as n from webhook_deliveries where store_id in (?) and status = 'sending'`, [storeIds]);
    say(`${victim!.name} SIGKILLed with ${receivedAtKill} delivered and ${inFlight} claimed and in flight; ${survivor.name} carries on`);

    const events = await count(`select count(*) as n from order_events where store_id in (?) and not backfill`, [storeIds]);
    expect(events).toBe(STORES * ORDERS);
    const settledMs = await waitUntil(
      async () =>
        (await count(`select count(*) as n from webhook_deliveries where store_id in (?) and status <> 'pending'`, [storeIds])) === events,
      150_000,
      'every delivery planned and attempted',
    );
    await sleep(1500);
    const got = stores.flatMap((s, e) => hooksOf(s.hooks[0]!, e));
    // At most once: no event twice at an endpoint; a delivery cut by the kill stays 'sending', never re-sent.
    expect(new Set(got.map((h) => `${h.endpoint}/${h.event}`)).size).toBe(got.length);
    const states = await rows<{ status: string; n: number }>(
      `select status, count(*)::int as n from webhook_deliveries where store_id in (?) group by status`,
      [storeIds],
    );
    const byStatus = Object.fromEntries(states.map((r) => [r.status, r.n]));
    expect((byStatus.sending ?? 0) + (byStatus.failed ?? 0)).toBeLessThanOrEqual(inFlight);
    expect(byStatus.delivered).toBeGreaterThanOrEqual(events - inFlight);
    expect(got.length).toBeGreaterThanOrEqual(byStatus.delivered!);
    // The survivor sent what was left: deliveries kept arriving after the kill.
    expect(got.length).toBeGreaterThan(receivedAtKill);
    // Every lane finished on the survivor.
    for (const s of stores) {
      const d = await temporal.workflow.getHandle(workflowIds.storeWebhookDispatch(s.storeId)).describe();
      for (const a of d.raw.pendingActivities ?? []) expect(a.lastWorkerIdentity).toMatch(new RegExp(`^${survivor.child.pid}@`));
    }
    say(
      `settled ${(settledMs / 1000).toFixed(1)} s after the kill (${((Date.now() - killedAt) / 1000).toFixed(1)} s incl. checks): ${JSON.stringify(byStatus)}`,
    );
  }, 240_000);
});
