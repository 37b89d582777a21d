// Retention (docs/operations.md, "Retention"): old delivery attempts and order events go in bounded
// batches, and exactly those; what is waiting, what a replay still points at and what a kept attempt
// still needs stay; the delivery log and replay keep working. And a delivery's claim is a HOT update.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { listDeliveries, replayDelivery } from '../../services/webhooks/deliveries.js';
import { claimDeliveries } from '../../services/webhooks/lane.js';
import { pruneDeliveryLog, pruneOrderEvents } from '../../services/housekeeping/retention.js';
import { autovacuumOff, vacuumTable } from '../../services/housekeeping/vacuum.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

let t: TestApp;
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
// A database of its own: the suite's worker and test/temporal/housekeeping.test.ts run the real retention job
// on the shared one, and deleted this file's old rows between their seeding and the prune it measures.
beforeAll(async () => {
  db = await createIsolatedDatabase();
  t = await createTestApp({ DATABASE_URL: db.url });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
  await db?.drop();
});

const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(query, params);

/** A store with one live endpoint and one order (through the API), whose rows the test then writes directly. */
async function storeWithOrder() {
  const s = await createTestStore(t.orm);
  const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:write', 'webhooks:write'] });
  const hook = await t.request({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(key),
    payload: { url: receiver.url(), events: ['order.paid'] },
  });
  expect(hook.statusCode).toBe(201);
  const order = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(key),
    payload: { external_id: `retention-${randomUUID()}`, totals: { total: 1 } },
  });
  expect(order.statusCode).toBe(201);
  return { storeId: s.store.id, endpointId: hook.json<{ id: string }>().id, orderId: order.json<{ order: { id: string } }>().order.id };
}

type Ctx = Awaited<ReturnType<typeof storeWithOrder>>;

/** An order event `daysAgo` old; dispatched unless told otherwise. */
async function event(c: Ctx, daysAgo: number, opts: { dispatched?: boolean; backfill?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  await sql(
    `insert into order_events (id, store_id, order_id, type, backfill, actor, payload, created_at, dispatched_at)
     values (?, ?, ?, 'order.paid', ?, 'test', '{}', now() - make_interval(days => ?), case when ? then now() - make_interval(days => ?) end)`,
    [id, c.storeId, c.orderId, opts.backfill ?? false, daysAgo, opts.dispatched ?? true, daysAgo],
  );
  return id;
}

/** A delivery attempt of an event, `daysAgo` old, in a status (finished ones have finished_at; a sending one is being attempted now, so the sweep leaves it). */
async function delivery(c: Ctx, eventId: string, daysAgo: number, status: string, replayOf: string | null = null): Promise<string> {
  const id = randomUUID();
  await sql(
    `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, replay_of, status, created_at, attempted_at, finished_at)
     values (?, ?, ?, ?, 'order.paid', ?, ?, ?, now() - make_interval(days => ?),
       case ? when 'pending' then null when 'sending' then now() else now() - make_interval(days => ?) end,
       case when ? in ('delivered', 'failed', 'cancelled') then now() - make_interval(days => ?) end)`,
    [id, c.storeId, c.endpointId, eventId, c.orderId, replayOf, status, daysAgo, status, daysAgo, status, daysAgo],
  );
  return id;
}

const left = async (table: 'webhook_deliveries' | 'order_events', ids: string[]) =>
  new Set((await sql<{ id: string }>(`select id from ${table} where id = any(?::uuid[])`, [`{${ids.join(',')}}`])).map((r) => r.id));

/** Runs a prune to the end, as consecutive scheduled runs would; every statement's count. */
async function pruneAll(run: typeof pruneDeliveryLog, days: number, batch: number) {
  const steps: number[] = [];
  let statements = 0;
  for (let n = 0; n < 10; n++) {
    let last = 0;
    const r = await run(t.orm.em.fork(), { days, batch, progress: (deleted) => (steps.push(deleted - last), (last = deleted)) });
    statements += r.statements;
    expect(r.budgetSpent).toBe(false);
    if (r.deleted === 0) break;
  }
  return { steps, statements };
}

describe('the delivery log keeps WEBHOOK_DELIVERY_RETENTION_DAYS of attempts', () => {
  it('deletes exactly the finished attempts older than the retention, a few per statement, and keeps what is waiting or replayed', async () => {
    const c = await storeWithOrder();
    // Each attempt of an event of its own (one first attempt per event and endpoint).
    const attempt = async (days: number, status: string, replayOf: string | null = null) =>
      delivery(c, await event(c, days + 1), days, status, replayOf);
    const gone = [await attempt(40, 'delivered'), await attempt(41, 'failed'), await attempt(42, 'cancelled')];
    const oldRoot = await attempt(40, 'failed');
    const oldReplay = await attempt(35, 'delivered', oldRoot);
    gone.push(oldRoot, oldReplay);
    const kept = [
      // Not finished, however old: the lane still owns them.
      await attempt(40, 'pending'),
      await attempt(40, 'sending'),
      await attempt(29, 'delivered'),
    ];
    // An old attempt replayed lately stays as long as its replay does (the replay points at it).
    const replayedRoot = await attempt(40, 'failed');
    const recentReplay = await attempt(2, 'delivered', replayedRoot);
    kept.push(replayedRoot, recentReplay);

    const { steps, statements } = await pruneAll(pruneDeliveryLog, 30, 2);
    expect(await left('webhook_deliveries', gone)).toEqual(new Set());
    expect(await left('webhook_deliveries', kept)).toEqual(new Set(kept));
    // In batches: no statement deleted more than the batch, and it took several statements.
    expect(Math.max(...steps)).toBeLessThanOrEqual(2);
    expect(statements).toBeGreaterThanOrEqual(3);

    // The log and replay still work on what is kept, the old replayed attempt included.
    const listed = await listDeliveries(t.orm.em.fork(), c.storeId, { limit: 50 });
    expect(listed.map((d) => d.id)).toEqual(expect.arrayContaining(kept));
    expect(listed.map((d) => d.id).filter((id) => gone.includes(id))).toEqual([]);
    const replayed = await replayDelivery(t.orm.em.fork(), replayedRoot);
    expect(replayed).toMatchObject({ replay_of: replayedRoot });
  });

  it('0 days keeps everything', async () => {
    const c = await storeWithOrder();
    const old = await delivery(c, await event(c, 400), 400, 'delivered');
    const r = await pruneDeliveryLog(t.orm.em.fork(), { days: 0 });
    expect(r).toMatchObject({ deleted: 0, statements: 0 });
    expect(await left('webhook_deliveries', [old])).toEqual(new Set([old]));
  });

  it('stops at its time budget and says so; the next run carries on', async () => {
    const c = await storeWithOrder();
    const old = await Promise.all([1, 2, 3, 4, 5].map(async () => delivery(c, await event(c, 50), 50, 'delivered')));
    const first = await pruneDeliveryLog(t.orm.em.fork(), { days: 30, batch: 1, budgetMs: 0 });
    expect(first).toMatchObject({ deleted: 1, statements: 1, budgetSpent: true });
    await pruneAll(pruneDeliveryLog, 30, 2);
    expect(await left('webhook_deliveries', old)).toEqual(new Set());
  });

  it('rests between statements in proportion to their time (background work leaves the service the database)', async () => {
    const c = await storeWithOrder();
    const seed = () => Promise.all([1, 2, 3, 4, 5].map(async () => delivery(c, await event(c, 50), 50, 'delivered')));
    const timed = async (restRatio: number) => {
      await seed();
      const started = performance.now();
      const r = await pruneDeliveryLog(t.orm.em.fork(), { days: 30, batch: 1, restRatio });
      expect(r).toMatchObject({ deleted: 5, statements: 6 });
      return performance.now() - started;
    };
    // The same five one-row statements, resting 30 times their time after each, then not resting at all.
    const rested = await timed(30);
    const unrested = await timed(0);
    expect(rested).toBeGreaterThan(5 * unrested);
  });
});

describe('with autovacuum off, retention vacuums what it deleted itself', () => {
  const manualVacuums = async () =>
    Number(
      (await sql<{ n: string }>(`select vacuum_count as n from pg_stat_user_tables where relid = 'webhook_deliveries'::regclass`))[0]!.n,
    );

  it('knows when autovacuum will not visit a table: off on the server, or off for the table', async () => {
    const [server] = await sql<{ autovacuum: string }>(`show autovacuum`);
    try {
      await sql(`alter table webhook_deliveries set (autovacuum_enabled = off)`);
      expect(await autovacuumOff(t.orm.em.fork(), 'webhook_deliveries')).toBe(true);
      await sql(`alter table webhook_deliveries reset (autovacuum_enabled)`);
      expect(await autovacuumOff(t.orm.em.fork(), 'webhook_deliveries')).toBe(server!.autovacuum === 'off');
    } finally {
      await sql(`alter table webhook_deliveries reset (autovacuum_enabled)`);
    }
  });

  it('vacuums each time `every` rows are gone and once at the end, so dead rows never pile up past `every`', async () => {
    const c = await storeWithOrder();
    const old = await Promise.all([1, 2, 3, 4, 5].map(async () => delivery(c, await event(c, 45), 45, 'delivered')));
    const before = await manualVacuums();
    const deadAtVacuum: number[] = [];
    const r0 = { deleted: 0 };
    const r = await pruneDeliveryLog(t.orm.em.fork(), {
      days: 30,
      batch: 2,
      reclaim: {
        every: 2,
        run: async () => {
          deadAtVacuum.push(r0.deleted);
          await vacuumTable(t.config.databaseUrl, 'webhook_deliveries');
        },
      },
      progress: (deleted) => (r0.deleted = deleted),
    });
    // 2, 2 and 1 deleted: a vacuum after the first two statements, and one at the end for the last row.
    expect(r).toMatchObject({ deleted: 5, statements: 3, reclaims: 3 });
    expect(deadAtVacuum).toEqual([2, 4, 5]);
    expect(await manualVacuums()).toBeGreaterThanOrEqual(before + 3);
    expect(await left('webhook_deliveries', old)).toEqual(new Set());
  });

  it('a run that deletes nothing does not vacuum', async () => {
    let ran = 0;
    const r = await pruneDeliveryLog(t.orm.em.fork(), { days: 30, reclaim: { every: 1, run: async () => void ran++ } });
    expect(r).toMatchObject({ deleted: 0, reclaims: 0 });
    expect(ran).toBe(0);
  });
});

describe('order events are kept ORDER_EVENT_RETENTION_DAYS, and as long as a kept attempt needs them', () => {
  it('deletes old events that were sent (or never to be) and that no attempt refers to; keeps the rest', async () => {
    const c = await storeWithOrder();
    const gone = [await event(c, 100), await event(c, 100, { backfill: true })];
    const stillReferred = await event(c, 100);
    await delivery(c, stillReferred, 10, 'delivered');
    const kept = [stillReferred, await event(c, 100, { dispatched: false }), await event(c, 80)];

    const { steps, statements } = await pruneAll(pruneOrderEvents, 90, 1);
    expect(await left('order_events', gone)).toEqual(new Set());
    expect(await left('order_events', kept)).toEqual(new Set(kept));
    expect(Math.max(...steps)).toBeLessThanOrEqual(1);
    expect(statements).toBeGreaterThanOrEqual(2);
    // The order and its status history are other tables: untouched.
    expect(await sql(`select id from orders where id = ?`, [c.orderId])).toHaveLength(1);
  });
});

describe('a delivery status change PostgreSQL can apply as a HOT update', () => {
  it('claiming a pending delivery changes no indexed column: the new row version is heap-only (no new index entries)', async () => {
    const c = await storeWithOrder();
    const id = await delivery(c, await event(c, 0), 0, 'pending');
    expect(await claimDeliveries(t.orm.em.fork(), [id], null)).toHaveLength(1);
    await sql(`create extension if not exists pageinspect`);
    const [row] = await sql<{ heap_only: boolean; status: string }>(
      `select (i.t_infomask2 & 32768) <> 0 as heap_only, d.status
       from webhook_deliveries d, heap_page_items(get_raw_page('webhook_deliveries', (d.ctid::text::point)[0]::int)) i
       where d.id = ? and i.lp = (d.ctid::text::point)[1]::int`,
      [id],
    );
    expect(row).toEqual({ heap_only: true, status: 'sending' });
  });
});

describe('the retention settings are checked at boot', () => {
  const base = { SECRETS_KEY: '0'.repeat(64) };
  it('default to 30 days of delivery log and 90 days of order events', () => {
    expect(loadConfig(base).retention).toEqual({ deliveryDays: 30, orderEventDays: 90 });
  });
  it('accept 0 as keep forever, and refuse negative, fractional or too large values by name', () => {
    expect(loadConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '0', ORDER_EVENT_RETENTION_DAYS: '0' }).retention).toEqual({
      deliveryDays: 0,
      orderEventDays: 0,
    });
    for (const bad of ['-1', '1.5', '3651', 'a month'])
      expect(() => loadConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: bad })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });
  it('refuse order events kept for less time than the delivery log that replays them', () => {
    expect(() => loadConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '60', ORDER_EVENT_RETENTION_DAYS: '30' })).toThrow(
      /ORDER_EVENT_RETENTION_DAYS: must be 0 \(keep forever\) or at least WEBHOOK_DELIVERY_RETENTION_DAYS \(60\)/,
    );
  });
});
