// What a store owner reads and confirms: "Are you sure?" before revoke, delete and disconnect; amounts in
// the store's currency, statuses in words, times in the store's time zone; keys' last use; the webhook
// test event (signed like a delivery, metered per store); empty states that name the next step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceSignature, standardWebhookSignature } from '../../domain/webhook-signature.js';
import { formatAmount, formatMoment, inWords, timeZoneName } from '../../domain/display.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
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

describe('confirmation before revoke, delete and disconnect', () => {
  it('the first request asks with the item’s name and changes nothing; the confirmed POST acts', async () => {
    const { c, storeId, page, submit } = await ownerWithStore();
    const key = await addKey(t.orm, storeId, { kind: 'secret', label: 'Warehouse server' });
    const ask = await submit(`/keys/${key.id}/revoke`, {}, page('/keys'));
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('Are you sure?');
    expect(ask.body).toContain(`${key.key.slice(0, 16)}`);
    expect(ask.body).toContain('Warehouse server');
    expect(ask.body).toContain('name="confirm" value="yes"');
    expect((await c.get(page(`/keys/${key.id}/revoke`))).body).toContain('Are you sure?');
    expect((await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(200);
    const done = await submit(`/keys/${key.id}/revoke`, { confirm: 'yes' }, page('/keys'));
    expect(done.headers.location).toBe(page('/keys?done=revoked'));
    expect((await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(401);

    await submit('/webhooks', { url: 'http://127.0.0.1:9/hooks/confirm-me' });
    const [endpoint] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from webhook_endpoints where store_id = ?`, [storeId]);
    const askDelete = await submit(`/webhooks/${endpoint!.id}/delete`, {}, page('/webhooks'));
    expect(askDelete.body).toContain('Are you sure?');
    expect(askDelete.body).toContain('http://127.0.0.1:9/hooks/confirm-me');
    expect((await c.get(page('/webhooks'))).body).toContain('confirm-me');
    expect((await submit(`/webhooks/${endpoint!.id}/delete`, { confirm: 'yes' }, page('/webhooks'))).headers.location).toBe(
      page('/webhooks?done=deleted'),
    );
    expect((await c.get(page('/webhooks'))).body).not.toContain('confirm-me');

    const created = await submit('/connections', { platform: 'platform_a', site_url: 'https://tea-shop.example', shop_name: 'Tea shop' });
    const connKey = shownOnce(created.body, 'conn-key')!;
    const id = (await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(connKey) })).json().connection.id;
    const askDisconnect = await submit(`/connections/${id}/disconnect`, {}, page('/connections'));
    expect(askDisconnect.body).toContain('Are you sure?');
    expect(askDisconnect.body).toContain('Tea shop (https://tea-shop.example');
    expect((await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(connKey) })).statusCode).toBe(200);
    expect((await submit(`/connections/${id}/disconnect`, { confirm: 'yes' }, page('/connections'))).statusCode).toBe(303);
    expect((await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(connKey) })).statusCode).toBe(401);
  });
});

describe('display', () => {
  it('formats decimal text with Intl in the currency, ids in words, moments in a time zone', () => {
    expect(formatAmount('59.97', 'MAD')).toBe('MAD\u00a059.97');
    expect(formatAmount(5, 'EUR')).toBe('€5.00');
    // Exact beyond a double's reach: the decimal text is formatted, never a float.
    expect(formatAmount('99999999999.9999', 'USD')).toBe('$99,999,999,999.9999');
    expect(inWords('out_for_delivery')).toBe('Out for delivery');
    expect(inWords('cash_on_delivery')).toBe('Cash on delivery');
    expect(timeZoneName('utc')).toBe('UTC');
    expect(timeZoneName('Mars/Olympus')).toBeNull();
    expect(formatMoment('2026-06-25T23:30:00Z', 'Asia/Tokyo')).toBe('2026-06-26 08:30 Asia/Tokyo');
  });

  it('orders show money in the store’s currency, statuses in words and times in the store’s time zone (a setting)', async () => {
    const { c, storeId, page, submit } = await ownerWithStore();
    const refused = await submit('/settings', {
      name: 'Tea',
      currency: 'mad',
      mode: 'full',
      standard_delivery_fee: 'x',
      time_zone: 'Mars/Olympus',
    });
    expect(refused.statusCode).toBe(400);
    // Every bad field has its own message, and the typed values stay.
    expect(refused.body).toMatch(/id="e-time_zone"[^>]*>The time zone must be an IANA name/);
    expect(refused.body).toMatch(/id="e-standard_delivery_fee"/);
    expect(refused.body).toContain('value="Mars/Olympus"');
    const saved = await submit('/settings', {
      name: 'Tea',
      currency: 'mad',
      mode: 'full',
      standard_delivery_fee: '5',
      time_zone: 'asia/tokyo',
    });
    expect(saved.statusCode).toBe(303);
    expect((await c.get(page('/settings'))).body).toContain('value="Asia/Tokyo"');

    const key = await addKey(t.orm, storeId, { kind: 'secret' });
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(key.key),
      payload: { external_id: 'd-1', number: 'D-1', status: 'out_for_delivery', currency: 'MAD', totals: { total: 59.97, shipping: 5 } },
    });
    expect(created.statusCode).toBe(201);
    const order = created.json().order as { id: string; created_at: string };
    const list = (await c.get(page('/orders'))).body;
    expect(list).toContain('MAD\u00a059.97');
    expect(list).toContain('Out for delivery');
    expect(list).not.toContain('>out_for_delivery<');
    expect(list).toContain(formatMoment(order.created_at, 'Asia/Tokyo'));
    const detail = (await c.get(page(`/orders/${order.id}`))).body;
    expect(detail).toContain('MAD\u00a05.00');
    expect(detail).toContain('Asia/Tokyo');
  });

  it('a key’s last use is shown once the API has seen it', async () => {
    const { c, storeId, page } = await ownerWithStore();
    const key = await addKey(t.orm, storeId, { kind: 'secret' });
    const row = (body: string) => new RegExp(`${key.key.slice(0, 16)}[\\s\\S]*?</tr>`).exec(body)![0];
    expect(row((await c.get(page('/keys'))).body)).toMatch(/<td>—<\/td>\s*<td><form/);
    await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
    expect(row((await c.get(page('/keys'))).body)).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/td>\s*<td><form/);
  });
});

describe('send a test event', () => {
  it(
    'posts a signed webhook.test event to the endpoint and shows the result; at most 5 a minute per store',
    { timeout: 60_000 },
    async () => {
      const receiver = await startReceiver();
      const { storeId, page, submit } = await ownerWithStore('Test Event Store');
      const added = await submit('/webhooks', { url: receiver.url('/hooks/test') });
      const secret = shownOnce(added.body, 'new-secret')!;
      const [endpoint] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from webhook_endpoints where store_id = ?`, [storeId]);
      const sent = await submit(`/webhooks/${endpoint!.id}/test`, {}, page('/webhooks'));
      expect(sent.statusCode).toBe(200);
      expect(sent.body).toMatch(/id="test-result"[^>]*>Test event \(webhook\.test\): delivered, answered 200 in \d+ ms\./);
      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0]!;
      const body = JSON.parse(got.body);
      expect(body).toMatchObject({ type: 'webhook.test', data: { test: true, store: { id: storeId, name: 'Test Event Store' } } });
      expect(got.headers['x-service-event']).toBe('webhook.test');
      expect(got.headers['x-service-signature']).toBe(serviceSignature(secret, got.body));
      expect(got.headers['webhook-signature']).toBe(
        standardWebhookSignature(secret, body.id, Number(got.headers['webhook-timestamp']), got.body),
      );
      // Not an order delivery: nothing is recorded in the store's deliveries.
      expect(await t.orm.em.fork().execute(`select 1 from webhook_deliveries where store_id = ?`, [storeId])).toEqual([]);

      // Metered: a fixed one-minute window of 5; a run of 11 crosses at most one window boundary.
      const statuses: number[] = [];
      for (let i = 0; i < 11 && !statuses.includes(429); i++)
        statuses.push((await submit(`/webhooks/${endpoint!.id}/test`, {}, page('/webhooks'))).statusCode);
      expect(statuses).toContain(429);
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(9);
      const refused = await submit(`/webhooks/${endpoint!.id}/test`, {}, page('/webhooks'));
      if (refused.statusCode === 429) {
        expect(refused.body).toContain('At most 5 test events a minute per store');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(receiver.received.length).toBe(1 + statuses.filter((s) => s === 200).length + (refused.statusCode === 200 ? 1 : 0));
      await receiver.close();
    },
  );

  it('a refused address fails with the sender’s reason, and nothing is sent', async () => {
    const { storeId, page, submit } = await ownerWithStore();
    await submit('/webhooks', { url: 'http://127.0.0.1:9/closed' });
    const [endpoint] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from webhook_endpoints where store_id = ?`, [storeId]);
    // Port 9 on loopback: nobody listens; the result is shown, not an error page.
    const sent = await submit(`/webhooks/${endpoint!.id}/test`, {}, page('/webhooks'));
    expect(sent.statusCode).toBe(200);
    expect(sent.body).toMatch(/Test event \(webhook\.test\): failed: /);
  });
});

describe('empty states name the next step', () => {
  it('every list of a new store says what to do next', async () => {
    const { c, page } = await ownerWithStore();
    expect((await c.get(page('/orders'))).body).toContain('No orders yet. They arrive from');
    expect((await c.get(page('/products'))).body).toContain('Add your first product');
    expect((await c.get(page('/webhooks'))).body).toContain('No webhook endpoints yet. Add your server');
    expect((await c.get(page('/keys'))).body).toContain('Create one below: a secret key');
    expect((await c.get(page('/connections'))).body).toContain('No connected shops yet. Install the Store Commerce plugin');
    const fresh = new PageClient(t);
    await fresh.signUp();
    expect((await fresh.get('/dashboard')).body).toContain('You have no store yet. Create your first one below');
  });
});
