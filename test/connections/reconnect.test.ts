// A shop that disconnects and connects again (same site host) and re-sends its orders updates them, never
// duplicates them (spec: "Re-sending the same one updates the order"; "Orders already copied are kept").
// External ids are unique per store, platform and site host, whichever connection sent them (issue 23 item 8).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveConnection } from '../../services/connections/codes.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let seq = 0;
/** Connects a shop through a real code exchange; answers its connection id and key. */
async function connect(storeId: string, siteUrl: string, platform: 'platform_a' | 'platform_b' = 'platform_a') {
  const { code } = await approveConnection(t.orm.em.fork(), { storeId, platform, siteUrl, ttlSeconds: 600 });
  const res = await t.request({ method: 'POST', url: '/api/v1/connect/exchange', payload: { code, site_url: siteUrl } });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().connection_id as string, key: res.json().api_key as string };
}
const disconnect = async (key: string) =>
  expect((await t.request({ method: 'POST', url: '/api/v1/connect/disconnect', headers: bearer(key) })).json()).toEqual({ ok: true });
const send = (key: string, body: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: bearer(key),
    payload: { totals: { total: 30 }, status: 'wc-processing', ...body },
  });
const copies = (storeId: string, externalId: string) =>
  t.orm.em
    .fork()
    .execute<{ id: string; connection_id: string; note: string | null }[]>(
      'select id, connection_id, note from orders where store_id = ? and external_id = ? order by created_at',
      [storeId, externalId],
    );

describe('a shop that connects again updates its orders, never duplicates them', () => {
  it('re-sending an order after disconnect and reconnect (same host) updates the one order and moves it to the new connection', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const site = `https://re-${process.pid}-${++seq}.example`;
    const first = await connect(s.store.id, site);
    const externalId = `r-${seq}`;
    const created = await send(first.key, { external_id: externalId });
    expect(created.statusCode, created.body).toBe(201);
    await disconnect(first.key);

    // The owner connects the same shop again (its host decides: a trailing slash makes no other shop).
    const second = await connect(s.store.id, `${site}/`);
    const same = await send(second.key, { external_id: externalId });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json()).toMatchObject({ action: 'updated', order: { id: created.json().order.id } });
    const changed = await send(second.key, { external_id: externalId, note: 'sent again' });
    expect(changed.json()).toMatchObject({ action: 'updated', order: { id: created.json().order.id, note: 'sent again' } });
    expect(await copies(s.store.id, externalId)).toEqual([{ id: created.json().order.id, connection_id: second.id, note: 'sent again' }]);

    // It is now the new connection's order: it may cancel it (the spec's own-connection-key rule).
    const cancel = await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${created.json().order.id}`,
      headers: bearer(second.key),
      payload: { status: 'cancelled' },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
  });

  it('another shop (another host) of the same store, and the same host on another platform, keep orders of their own', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const site = `https://own-${process.pid}-${++seq}.example`;
    const externalId = `o-${seq}`;
    const shops = [
      await connect(s.store.id, site),
      await connect(s.store.id, `https://other-${process.pid}-${seq}.example`),
      await connect(s.store.id, site, 'platform_b'),
    ];
    for (const shop of shops) {
      const res = await send(shop.key, { external_id: externalId, status: shop === shops[2] ? 'open' : 'wc-processing' });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await copies(s.store.id, externalId)).toHaveLength(3);
  });
});
