import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveConnection } from '../../services/connections/codes.js';
import { bearer, createListeningTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore } from '../helpers/store.js';
import { connectedPlugin, mirroredOrder } from './fixtures.js';

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp({ CONNECT_CODE_TTL_SECONDS: '2' });
});
afterAll(() => t.close());

const exchange = (payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/api/v1/connect/exchange', payload });
const approve = (storeId: string, siteUrl: string, ttlSeconds = 600) =>
  approveConnection(t.orm.em.fork(), { storeId, platform: 'platform_a', siteUrl, ttlSeconds });

describe('the connect code', () => {
  it('exchanges once for a connection key with the connection scopes, a whsec_ secret and the connected store', async () => {
    const s = await createTestStore(t.orm);
    const { code } = await approve(s.store.id, 'https://one.example/shop');
    const res = await exchange({ code, site_url: 'https://one.example/' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.api_key).toMatch(/^svc_live_sk_[0-9a-f]{48}$/);
    expect(body.webhook_secret).toMatch(/^whsec_/);
    expect(body.store).toMatchObject({ id: s.store.id, slug: s.store.slug, dashboard_url: expect.stringContaining(s.store.id) });
    const me = await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(body.api_key) });
    expect(me.json().key).toEqual({
      kind: 'secret',
      scopes: ['orders:read', 'orders:write', 'products:write', 'tracking:read', 'connection:manage'],
      connection_id: body.connection_id,
    });
    expect((await exchange({ code, site_url: 'https://one.example/' })).statusCode).toBe(400);
  });

  it('of 20 racing exchanges of one code exactly one wins', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const { code } = await approve(s.store.id, 'https://race.example');
    const results = await Promise.all(Array.from({ length: 20 }, () => exchange({ code, site_url: 'https://race.example' })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(19);
    expect(results.every((r) => r.statusCode !== 200 || r.json().api_key)).toBe(true);
  });

  it('is refused for another host, and that attempt does not use it up', async () => {
    const s = await createTestStore(t.orm);
    const { code } = await approve(s.store.id, 'https://right.example');
    const wrong = await exchange({ code, site_url: 'https://staging.right.example' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.code).toBe('invalid_request');
    expect((await exchange({ code, site_url: 'https://right.example/x' })).statusCode).toBe(200);
  });

  it('any failure is 400: unknown code, bad body', async () => {
    expect((await exchange({ code: 'nope', site_url: 'https://x.example' })).statusCode).toBe(400);
    expect((await exchange({ site_url: 'https://x.example' })).json().error.param).toBe('code');
    expect((await exchange({ code: 'x', site_url: 'not a url' })).statusCode).toBe(400);
  });

  it('expires through its workflow after CONNECT_CODE_TTL_SECONDS and cannot be exchanged', async () => {
    const s = await createTestStore(t.orm);
    const { code, codeId } = await approve(s.store.id, 'https://slow.example', t.config.connectCodeTtlSeconds);
    await eventually(
      async () => {
        const [row] = await t.orm.em
          .fork()
          .execute<{ expired_at: Date | null }[]>(`select expired_at from connect_codes where id = ?`, [codeId]);
        return row!.expired_at !== null;
      },
      45_000,
      'the code workflow expiring the code',
    );
    expect((await exchange({ code, site_url: 'https://slow.example' })).statusCode).toBe(400);
    const handle = t.temporal.client.workflow.getHandle(`connect-code/${codeId}`);
    expect(await handle.result()).toEqual({ outcome: 'expired' });
  });

  it('is never stored in clear: only its hash', async () => {
    const s = await createTestStore(t.orm);
    const { code, codeId } = await approve(s.store.id, 'https://hash.example');
    const [row] = await t.orm.em.fork().execute<Record<string, unknown>[]>(`select * from connect_codes where id = ?`, [codeId]);
    expect(JSON.stringify(row)).not.toContain(code);
  });
});

describe('plan limits of connected shops', () => {
  it('a free store may connect one shop; a paid store five', async () => {
    const free = await createTestStore(t.orm);
    const { code } = await approve(free.store.id, 'https://first.example');
    expect((await exchange({ code, site_url: 'https://first.example' })).statusCode).toBe(200);
    await expect(approve(free.store.id, 'https://second.example')).rejects.toMatchObject({ code: 'conflict', status: 409 });
    const paid = await createTestStore(t.orm, { plan: 'paid' });
    for (let i = 0; i < 5; i++) {
      const c = await approve(paid.store.id, `https://p${i}.example`);
      expect((await exchange({ code: c.code, site_url: `https://p${i}.example` })).statusCode).toBe(200);
    }
    await expect(approve(paid.store.id, 'https://p6.example')).rejects.toThrow(/5/);
  });

  it('racing exchanges of codes approved below the limit never pass it (the store row is locked)', async () => {
    for (let round = 0; round < 3; round++) {
      const free = await createTestStore(t.orm);
      const codes = [];
      // Approved while no shop is connected yet: each code alone is valid.
      for (let i = 0; i < 6; i++)
        codes.push({ ...(await approve(free.store.id, `https://race${round}-${i}.example`)), site: `https://race${round}-${i}.example` });
      const results = await Promise.all(codes.map((c) => exchange({ code: c.code, site_url: c.site })));
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      expect(results.filter((r) => r.statusCode === 400)).toHaveLength(5);
      const [row] = await t.orm.em
        .fork()
        .execute<{ n: number }[]>(`select count(*)::int as n from connections where store_id = ? and status = 'active'`, [free.store.id]);
      expect(row!.n).toBe(1);
    }
  });
});

describe('the connection: heartbeat, host check, orders, disconnect', () => {
  it('records the heartbeat, and a site_url of another host is 409 and changes nothing', async () => {
    const c = await connectedPlugin(t, { push: false });
    const res = await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(c.apiKey) });
    expect(res.json().connection).toMatchObject({
      id: c.connectionId,
      platform: 'platform_a',
      status: 'active',
      status_detail: expect.stringMatching(/pull only/),
      orders_synced: 0,
      last_order_at: null,
    });
    const other = await t.request({
      method: 'PUT',
      url: '/api/v1/connection',
      headers: bearer(c.apiKey),
      payload: { site_url: 'https://staging.example', plugin_version: '9.9.9' },
    });
    expect(other.statusCode).toBe(409);
    const [row] = await t.orm.em
      .fork()
      .execute<{ plugin_version: string }[]>(`select plugin_version from connections where id = ?`, [c.connectionId]);
    expect(row!.plugin_version).toBe('1.0.0');
  });

  it('refuses a push_url that is not an allowed target', async () => {
    const c = await connectedPlugin(t, { push: false });
    const res = await t.request({
      method: 'PUT',
      url: '/api/v1/connection',
      headers: bearer(c.apiKey),
      payload: { push_url: 'http://10.0.0.5/hook' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('push_url');
  });

  it('orders sent with the connection key get its platform as source; orders_synced and last_order_at follow', async () => {
    const c = await connectedPlugin(t, { push: false });
    const id = await mirroredOrder(c, 'A-100');
    const order = await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(c.secret) });
    expect(order.json().order).toMatchObject({ source: 'platform_a', status: 'confirmed' });
    const conn = (await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(c.apiKey) })).json().connection;
    expect(conn.orders_synced).toBe(1);
    expect(conn.last_order_at).toBe(order.json().order.created_at);
  });

  it('after disconnect the key gives 401 from the next request on, and copied orders stay', async () => {
    const c = await connectedPlugin(t, { push: false });
    const id = await mirroredOrder(c, 'A-200');
    expect((await c.plugin.client.disconnect()).status).toBe(200);
    expect((await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(c.apiKey) })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(c.secret) })).statusCode).toBe(200);
  });
});
