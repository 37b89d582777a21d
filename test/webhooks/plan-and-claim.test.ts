// The dispatcher's planning statement for a run with nothing queued (planAndClaimShardDeliveries): it claims
// each endpoint's first new delivery as it plans, and only when the run's queue hands all of them out at
// once. What it claims is claimed exactly as CLAIM would: never claimed again, origin kept for operators.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimDeliveries, planAndClaimShardDeliveries, type ClaimAsPlanned } from '../../services/webhooks/lane.js';
import { webhookShards } from '../../workflows/webhooks/definitions.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sql = <T>(text: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(text, params);

// A store alone in its shard: with 2,147,483,647 shards a store's shard is the last 8 hex digits of its id,
// so the statement under test takes no other store's events. Its writes wake webhook-dispatch/<n>-of-1000,
// whose lease this test holds: no real dispatcher starts and takes the events first.
const ALONE = 2_147_483_647;
const shardAlone = (storeId: string) => ({ shard: Number(BigInt(`0x${storeId.slice(-8)}`) % BigInt(ALONE)), shards: ALONE });
const origin = { workflowId: 'webhook-dispatch/test', runId: 'run-1', activityId: '7' };
const claimAll = (over: Partial<ClaimAsPlanned> = {}): ClaimAsPlanned => ({
  room: 800,
  perStore: 40,
  skipEndpoints: [],
  by: origin,
  ...over,
});

const shards = webhookShards.count;
beforeAll(() => void (webhookShards.count = 1000));
afterAll(() => void (webhookShards.count = shards));
afterEach(() => sql(`update lanes set active_until = '-infinity' where workflow_id like 'webhook-dispatch/%-of-1000'`));

/** A store with `endpoints` endpoints (all events) and `orders` new orders, whose events no dispatcher has taken. */
async function storeWithWaitingEvents(endpoints: number, orders: number) {
  const s = await createTestStore(t.orm, { plan: 'paid' });
  const admin = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:write', 'webhooks:write'] })).key;
  await sql(
    `insert into lanes (workflow_id, active_until) values (?, 'infinity') on conflict (workflow_id) do update set active_until = 'infinity'`,
    [workflowIds.storeWebhookDispatch(s.store.id)],
  );
  const endpointIds: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const r = await t.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(admin),
      // Loopback, port 9 (discard): no DNS query, and nothing listens should anything ever be sent.
      payload: { url: `http://127.0.0.1:9/hook-${i}`, events: ['order.created'] },
    });
    expect(r.statusCode, r.body).toBe(201);
    endpointIds.push(r.json().id);
  }
  const orderIds: string[] = [];
  for (let i = 0; i < orders; i++) {
    const r = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(admin),
      payload: { external_id: `plan-claim-${i}`, totals: { total: 1 } },
    });
    expect(r.statusCode, r.body).toBe(201);
    orderIds.push(r.json().order.id);
  }
  return { storeId: s.store.id, endpointIds, orderIds };
}

const rowsOf = (storeId: string) =>
  sql<{
    id: string;
    endpoint_id: string;
    order_id: string;
    status: string;
    workflow_id: string | null;
    run_id: string | null;
    activity_id: string | null;
    attempted: boolean;
  }>(
    `select id, endpoint_id, order_id, status, workflow_id, run_id, activity_id, attempted_at is not null as attempted
     from webhook_deliveries where store_id = ? order by created_at, endpoint_id`,
    [storeId],
  );

describe('planning and claiming in one statement', () => {
  it('claims the first delivery of each endpoint, with its origin and its event once; the others stay pending', async () => {
    const s = await storeWithWaitingEvents(2, 2);
    const planned = await planAndClaimShardDeliveries(t.orm.em.fork(), shardAlone(s.storeId), 1000, claimAll());
    expect(planned).toHaveLength(4);
    // In send order: the first order's two deliveries (claimed), then the second order's (pending).
    expect(planned.map((p) => [p.orderId, p.claimed !== null])).toEqual([
      [s.orderIds[0], true],
      [s.orderIds[0], true],
      [s.orderIds[1], false],
      [s.orderIds[1], false],
    ]);
    const claimed = planned.filter((p) => p.claimed).map((p) => p.claimed!);
    expect(new Set(claimed.map((c) => c.endpointId))).toEqual(new Set(s.endpointIds));
    expect(claimed.map((c) => c.url).sort()).toEqual(['http://127.0.0.1:9/hook-0', 'http://127.0.0.1:9/hook-1']);
    // The event's payload comes on one of its claimed rows only (both share the body).
    const payloads = claimed.map((c) => c.payload).filter((p) => p !== null);
    expect(payloads).toHaveLength(1);
    expect(JSON.parse(payloads[0]!).id).toBe(s.orderIds[0]);
    expect(claimed.every((c) => c.eventType === 'order.created' && c.secretSealed.length > 0)).toBe(true);

    const rows = await rowsOf(s.storeId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const c of claimed)
      expect(byId.get(c.id)).toMatchObject({
        status: 'sending',
        workflow_id: 'webhook-dispatch/test',
        run_id: 'run-1',
        activity_id: '7',
        attempted: true,
      });
    for (const p of planned.filter((x) => !x.claimed))
      expect(byId.get(p.deliveryId)).toMatchObject({ status: 'pending', workflow_id: null, attempted: false });
    // Claimed as planned means claimed: CLAIM refuses them, and takes the pending ones.
    expect(
      await claimDeliveries(
        t.orm.em.fork(),
        claimed.map((c) => c.id),
        origin,
      ),
    ).toEqual([]);
    const pending = planned.filter((p) => !p.claimed).map((p) => p.deliveryId);
    expect((await claimDeliveries(t.orm.em.fork(), pending, origin)).map((c) => c.id).sort()).toEqual([...pending].sort());
    // The events are taken: planning again finds nothing.
    expect(await planAndClaimShardDeliveries(t.orm.em.fork(), shardAlone(s.storeId), 1000, claimAll())).toEqual([]);
  });

  it('claims nothing when the deliveries do not all fit the run’s room, or a store’s limit', async () => {
    const overRoom = await storeWithWaitingEvents(2, 2);
    const planned = await planAndClaimShardDeliveries(t.orm.em.fork(), shardAlone(overRoom.storeId), 1000, claimAll({ room: 3 }));
    expect(planned).toHaveLength(4);
    expect(planned.filter((p) => p.claimed)).toEqual([]);
    expect((await rowsOf(overRoom.storeId)).map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending']);

    const overStore = await storeWithWaitingEvents(2, 2);
    const again = await planAndClaimShardDeliveries(t.orm.em.fork(), shardAlone(overStore.storeId), 1000, claimAll({ perStore: 3 }));
    expect(again).toHaveLength(4);
    expect(again.filter((p) => p.claimed)).toEqual([]);
  });

  it('never claims for an endpoint whose circuit the run holds open', async () => {
    const s = await storeWithWaitingEvents(2, 1);
    const [open, closed] = s.endpointIds;
    const planned = await planAndClaimShardDeliveries(t.orm.em.fork(), shardAlone(s.storeId), 1000, claimAll({ skipEndpoints: [open!] }));
    expect(planned.map((p) => [p.endpointId, p.claimed !== null]).sort()).toEqual(
      [
        [open, false],
        [closed, true],
      ].sort(),
    );
    // The one claimed carries the payload, as the first claimed row of its event.
    expect(planned.find((p) => p.claimed)!.claimed!.payload).not.toBeNull();
  });
});
