// The dashboard's pages at the HTTP level: keys, webhooks, orders (filters, paging, the PATCH rules),
// connections (manual connection, updates, send again, disconnect), settings, and escaping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey } from '../helpers/store.js';
import { PageClient } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

async function ownerWithStore(name?: string) {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore(name);
  const page = (rest = '') => `/dashboard/stores/${storeId}${rest}`;
  const submit = (rest: string, fields: Record<string, string | string[]>, from = page(rest)) => c.post(page(rest), fields, { from });
  return { c, storeId, page, submit };
}
const shownOnce = (body: string, id: string) => new RegExp(`id="${id}"[^>]*value="([^"]+)"`).exec(body)?.[1] ?? null;

describe('keys', () => {
  it('creates publishable and legacy keys with the spec’s permission rules and allowed websites', async () => {
    const { submit, page, c } = await ownerWithStore();
    const pub = await submit('/keys', {
      kind: 'publishable',
      scopes: ['orders:read', 'products:read', 'checkout:write'],
      origins: 'https://shop.example\nhttps://www.shop.example/',
    });
    expect(pub.statusCode).toBe(200);
    const pk = shownOnce(pub.body, 'new-key')!;
    expect(pk).toMatch(/^svc_live_pk_/);
    expect(pub.body).toContain('Permissions: products:read, checkout:write');
    const me = await t.request({
      method: 'GET',
      url: '/api/v1/me',
      headers: { ...bearer(pk), origin: 'https://www.shop.example', 'sec-fetch-mode': 'cors' },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().key.scopes).toEqual(['products:read', 'checkout:write']);
    const legacy = await submit('/keys', { kind: 'legacy' });
    expect(shownOnce(legacy.body, 'new-key')).toMatch(/^svc_live_[0-9a-f]{40}$/);
    const list = (await c.get(page('/keys'))).body;
    expect(list).toContain('https://shop.example, https://www.shop.example');
    expect(list).toContain('orders:read, webhooks:write');
    expect(list).not.toContain(pk);
  });

  it('explains what is wrong with a key form', async () => {
    const { submit } = await ownerWithStore();
    expect((await submit('/keys', { kind: 'publishable', scopes: 'products:read', origins: 'https://shop.example/path' })).body).toContain(
      'is not a website origin',
    );
    expect((await submit('/keys', { kind: 'secret', origins: 'https://shop.example', scopes: 'orders:read' })).body).toContain(
      'Only publishable keys have allowed websites',
    );
    const none = await submit('/keys', { kind: 'secret' });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Tick at least one permission');
  });
});

describe('webhooks', () => {
  it('adds an endpoint with its secret shown once, refuses a private address with the API’s reason, and deletes', async () => {
    const { submit, page, c, storeId } = await ownerWithStore();
    const added = await submit('/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['order.shipped', 'order.created'] });
    expect(shownOnce(added.body, 'new-secret')).toMatch(/^whsec_/);
    expect(added.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    const listed = (await c.get(page('/webhooks'))).body;
    expect(listed).toContain('Events: order.shipped, order.created');
    expect(listed).not.toContain('whsec_');
    expect((await c.get(page('/webhooks'))).headers['content-security-policy']).not.toContain('script-src');
    const refused = await submit('/webhooks', { url: 'https://private.example/hook' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/url [^<]*private/);
    const twice = await submit('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    expect(twice.statusCode).toBe(409);
    const [endpoint] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from webhook_endpoints where store_id = ?`, [storeId]);
    const deleted = await submit(`/webhooks/${endpoint!.id}/delete`, { confirm: 'yes' }, page('/webhooks'));
    expect(deleted.headers.location).toBe(page('/webhooks?done=deleted'));
    expect((await c.get(page('/webhooks'))).body).toContain('No webhook endpoints yet.');
  });
});

describe('orders', () => {
  async function withOrders(n: number) {
    const owner = await ownerWithStore();
    const key = await addKey(t.orm, owner.storeId, { kind: 'secret' });
    for (let i = 1; i <= n; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(key.key),
        payload: { external_id: `o-${i}`, number: `N-${i}`, status: i === 1 ? 'confirmed' : 'pending', totals: { total: i } },
      });
      expect(res.statusCode).toBe(201);
    }
    return { ...owner, key: key.key };
  }

  it('lists with the API’s filters and pages with its cursor, newest first', async () => {
    const { c, page } = await withOrders(3);
    const first = await c.get(page('/orders?limit=25&status=pending'));
    expect(first.body).toContain('N-3');
    expect(first.body).toContain('N-2');
    expect(first.body).not.toContain('>N-1<');
    const paged = await c.get(page('/orders?limit=2'));
    expect(paged.body.indexOf('N-3')).toBeLessThan(paged.body.indexOf('N-2'));
    const next = /href="([^"]+)" rel="next"/.exec(paged.body)![1]!.replaceAll('&amp;', '&');
    expect(next).toContain('limit=2');
    const second = await c.get(next);
    expect(second.body).toContain('N-1');
    expect(second.body).not.toContain('rel="next"');
    expect((await c.get(page('/orders?created_since=2020-01-01&external_id=o-2'))).body).toContain('N-2');
    const bad = await c.get(page('/orders?status=lost&cursor=nonsense'));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('This filter cannot be used');
  });

  it('an outside platform’s order cannot be cancelled here: a clear 409 message, and nothing changes', async () => {
    const { c, page, submit } = await ownerWithStore();
    const created = await submit('/connections', { platform: 'platform_a', site_url: 'https://shop-b.example' });
    const connectionKey = shownOnce(created.body, 'conn-key')!;
    const order = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(connectionKey),
      payload: { external_id: 'wc-1', number: '7001', status: 'processing', totals: { total: 5 } },
    });
    expect(order.json().order.source).toBe('platform_a');
    const id = order.json().order.id;
    const refused = await submit(`/orders/${id}`, { status: 'cancelled' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Not changed: This order belongs to platform_a; cancel it there, not here.');
    const wrongWay = await submit(`/orders/${id}`, { status: 'pending' });
    expect(wrongWay.statusCode).toBe(409);
    expect(wrongWay.body).toContain('cannot go from confirmed to pending');
    const badUrl = await submit(`/orders/${id}`, { tracking_url: 'javascript:alert(1)' });
    expect(badUrl.statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(connectionKey) })).json().order).toMatchObject({
      status: 'confirmed',
      tracking: { url: null },
    });

    // A change made here goes back to the shop as an update; the connections page shows it, and can send it again.
    const shipped = await submit(`/orders/${id}`, { status: 'shipped', tracking_number: 'TRK-1' });
    expect(shipped.statusCode).toBe(303);
    const history = (await c.get(page(`/orders/${id}`))).body;
    expect(history).toMatch(/<td>Shipped<\/td><td><\/td><td class="muted">dashboard:[0-9a-f-]{36}<\/td>/);
    const [update] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from connection_updates where order_id = ?`, [id]);
    expect((await c.get(page('/connections'))).body).toContain('1 waiting, 0 failed');
    const ack = await t.request({
      method: 'POST',
      url: '/api/v1/connection/updates/ack',
      headers: bearer(connectionKey),
      payload: { applied: [], failed: [{ id: update!.id, error: 'order locked <b>here</b>' }] },
    });
    expect(ack.json().acknowledged).toBe(1);
    const failed = (await c.get(page('/connections'))).body;
    expect(failed).toContain('0 waiting, 1 failed');
    expect(failed).toContain('order locked &lt;b&gt;here&lt;/b&gt;');
    const connectionId = /\/connections\/([0-9a-f-]{36})\/replay/.exec(failed)![1]!;
    const replay = await submit(`/connections/${connectionId}/replay`, {}, page('/connections'));
    expect(replay.headers.location).toBe(page('/connections?done=replayed-1'));
    expect((await c.get(replay.headers.location as string)).body).toContain('1 update(s) will be sent again now.');
    const [state] = await t.orm.em.fork().execute<{ state: string }[]>(`select state from connection_updates where id = ?`, [update!.id]);
    expect(state!.state).toBe('waiting');
  });
});

describe('connections', () => {
  it('a manual connection shows its key and signing secret once; the plan limit is explained; disconnect stops the key', async () => {
    const { c, page, submit } = await ownerWithStore();
    const created = await submit('/connections', { platform: 'platform_b', site_url: 'https://shop-m.example', shop_name: 'Manual shop' });
    const key = shownOnce(created.body, 'conn-key')!;
    expect(shownOnce(created.body, 'conn-secret')).toMatch(/^whsec_/);
    const connection = await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(key) });
    expect(connection.json().connection).toMatchObject({ platform: 'platform_b', status: 'active', shop_url: 'https://shop-m.example' });
    const second = await submit('/connections', { platform: 'platform_a', site_url: 'https://shop-n.example' });
    expect(second.statusCode).toBe(409);
    expect(second.body).toContain('the most its free plan allows (1)');
    const bad = await submit('/connections', { platform: 'platform_a', site_url: 'ftp://shop.example' });
    expect(bad.body).toContain('must be an http(s) address');
    const id = connection.json().connection.id;
    const gone = await submit(`/connections/${id}/disconnect`, { confirm: 'yes' }, page('/connections'));
    expect(gone.statusCode).toBe(303);
    expect((await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(key) })).statusCode).toBe(401);
    const after = (await c.get(page('/connections?done=disconnected'))).body;
    expect(after).toContain('disconnected from the dashboard');
    expect(after).not.toContain(`/connections/${id}/disconnect`);
  });
});

describe('settings and escaping', () => {
  it('saves the settings, which the API then reports, and refuses bad values with a message', async () => {
    const { c, page, submit } = await ownerWithStore();
    const key = await addKey(t.orm, (await c.get(page())).body.match(/class="mono">([0-9a-f-]{36})</)![1]!, { kind: 'secret' });
    const saved = await submit('/settings', {
      name: 'Renamed store',
      currency: 'mad',
      mode: 'tracking_only',
      standard_delivery_fee: '12.50',
    });
    expect(saved.statusCode).toBe(303);
    const me = (await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).json();
    expect(me.store).toMatchObject({ name: 'Renamed store', currency: 'MAD', mode: 'tracking_only' });
    expect(me.limits.requests_per_minute).toBe(60);
    const form = (await c.get(page('/settings'))).body;
    expect(form).toContain('value="12.5"');
    expect(form).not.toMatch(/name="published" checked/);
    expect(form).toMatch(/\/s\/[a-z0-9-]+\/track/);
    for (const [field, value, message] of [
      ['currency', 'EURO', 'three-letter'],
      ['standard_delivery_fee', '-1', 'between 0'],
      ['standard_delivery_fee', 'abc', 'amount such as'],
      ['name', '', 'name must have'],
    ] as const) {
      const res = await submit('/settings', {
        name: 'X',
        currency: 'EUR',
        mode: 'full',
        plan: 'free',
        standard_delivery_fee: '0',
        [field]: value,
      });
      expect(res.statusCode, field).toBe(400);
      expect(res.body).toContain(message);
    }
  });

  it('every value is escaped on output', async () => {
    const { c, page } = await ownerWithStore('<img src=x onerror=alert(1)> & "quotes"');
    for (const path of ['', '/keys', '/settings']) {
      const body = (await c.get(page(path))).body;
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;');
    }
    expect((await c.get('/dashboard')).body).not.toContain('<img src=x');
  });

  it('unknown dashboard pages are an HTML 404, and pages carry the security headers', async () => {
    const { c } = await ownerWithStore();
    const res = await c.get('/dashboard/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    const home = await c.get('/dashboard');
    expect(home.headers['content-security-policy']).toContain("default-src 'none'");
    expect(home.headers['cache-control']).toBe('no-store');
    expect(home.headers['x-ratelimit-remaining']).toBe(home.headers['x-ratelimit-limit']);
  });
});
