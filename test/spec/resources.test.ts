// Spec audit (docs/spec-coverage.md): the resource shapes no other file pins down field by field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createListeningTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { connectedPlugin, mirroredOrder } from '../connections/fixtures.js';
import { approveConnection } from '../../services/connections/codes.js';
import { addProduct } from '../catalog/fixtures.js';

let t: TestApp & { baseUrl: string };
let s: TestStore;
beforeAll(async () => {
  t = await createListeningTestApp();
  s = await createTestStore(t.orm, { name: 'Spec Shop', currency: 'MAD' });
});
afterAll(() => t.close());

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('the order object carries exactly the fields of the spec (RES-ORDER)', () => {
  it('an order copied by a platform_a connection: every field, the input mapped onto it, dates ISO 8601 UTC', async () => {
    const c = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(c.key),
      payload: {
        external_id: 'A-77',
        number: '#77',
        status: 'wc-processing',
        totals: { total: 120.5, discount: 5, shipping: 20, cod_fee: 10, tax: 3.25 },
        currency: 'MAD',
        payment: { is_cod: true, method: 'cod', method_title: 'Cash on delivery' },
        customer: {
          name: 'Sara K',
          email: 'sara@example.com',
          phone: '+212612345678',
          address_line1: 'Rue 1',
          address_line2: 'Apt 2',
          city: 'Rabat',
          state: 'RSK',
          postcode: '10000',
          country: 'MA',
        },
        items: [
          {
            external_product_id: 'p-9',
            name: 'Mint tea',
            sku: 'MT-1',
            variant: 'Large',
            image_url: 'https://img.example/t.png',
            quantity: 2,
            unit_price: 45.25,
          },
        ],
        note: 'Call first',
        admin_url: 'https://shop-a.example/wp-admin/post.php?post=77',
        created_at: '2026-01-02T03:04:05.000Z',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().order;
    expect(Object.keys(order).sort()).toEqual(
      [
        'archived',
        'created_at',
        'currency',
        'customer',
        'external_id',
        'external_number',
        'external_status',
        'external_url',
        'id',
        'items',
        'note',
        'object',
        'order_number',
        'payment',
        'risk',
        'source',
        'status',
        'totals',
        'tracking',
        'updated_at',
      ].sort(),
    );
    expect(order).toMatchObject({
      object: 'order',
      order_number: '#77',
      source: 'platform_a',
      external_id: 'A-77',
      external_number: '#77',
      external_status: 'wc-processing',
      external_url: 'https://shop-a.example/wp-admin/post.php?post=77',
      status: 'confirmed',
      payment: { method: 'cod', status: 'unpaid', external_method: 'cod', external_method_title: 'Cash on delivery' },
      totals: { total: 120.5, discount: 5, shipping: 20, cod_fee: 10 },
      currency: 'MAD',
      customer: {
        name: 'Sara K',
        email: 'sara@example.com',
        phone: '+212612345678',
        address: 'Rue 1, Apt 2',
        city: 'Rabat',
        state: 'RSK',
        postcode: '10000',
        country: 'MA',
      },
      items: [
        {
          name: 'Mint tea',
          variant: 'Large',
          quantity: 2,
          unit_price: 45.25,
          sku: 'MT-1',
          product_id: null,
          external_product_id: 'p-9',
          image_url: 'https://img.example/t.png',
        },
      ],
      note: 'Call first',
      archived: false,
    });
    expect(order.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Object.keys(order.tracking).sort()).toEqual(['courier', 'number', 'page_url', 'status_text', 'url']);
    expect(order.tracking.page_url.startsWith(`${t.baseUrl}/`)).toBe(true);
    expect(order.risk === null || ['medium', 'high'].includes(order.risk.level)).toBe(true);
    expect(order.created_at).toBe('2026-01-02T03:04:05.000Z');
    expect(order.updated_at).toMatch(ISO_UTC);
  });

  it('customer.name is always a string, even when the input sent no customer', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: `no-customer-${process.pid}`, totals: { total: 1 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { customer } = res.json().order;
    expect(typeof customer.name).toBe('string');
    expect(customer).toMatchObject({ email: null, phone: null, address: null, city: null, state: null, postcode: null, country: null });
  });
});

describe('the update object carries exactly the fields of the spec (RES-UPDATE)', () => {
  it('a pulled update: id, order_id, external_id, number, status, tracking, tracking_page_url, comment, updated_at', async () => {
    const c = await connectedPlugin(t, { push: false });
    const orderId = await mirroredOrder(c, 'U-1');
    const patched = await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${orderId}`,
      headers: bearer(c.secret),
      payload: {
        status: 'shipped',
        tracking: { number: 'AWB-1', courier: 'Speedy', url: 'https://track.example/AWB-1' },
        comment: 'on its way',
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const pulled = await t.request({ method: 'GET', url: '/api/v1/connection/updates', headers: bearer(c.apiKey) });
    expect(pulled.statusCode).toBe(200);
    expect(Object.keys(pulled.json())).toEqual(['updates']);
    const [update] = pulled.json().updates;
    expect(Object.keys(update).sort()).toEqual(
      ['comment', 'external_id', 'id', 'number', 'order_id', 'status', 'tracking', 'tracking_page_url', 'updated_at'].sort(),
    );
    expect(update).toMatchObject({
      order_id: orderId,
      external_id: 'U-1',
      number: '#U-1',
      status: 'shipped',
      tracking: { number: 'AWB-1', courier: 'Speedy', url: 'https://track.example/AWB-1' },
      tracking_page_url: patched.json().order.tracking.page_url,
      comment: 'on its way',
    });
    expect(update.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(update.updated_at).toMatch(ISO_UTC);
  });
});

describe('the connect exchange, connected store and connection carry exactly the fields of the spec (RES-CONN)', () => {
  it('POST /connect/exchange answers api_key, webhook_secret, connection_id and store {id, name, slug, tracking_url, dashboard_url}', async () => {
    const shop = await createTestStore(t.orm, { name: 'Exchange Shop' });
    const { code } = await approveConnection(t.orm.em.fork(), {
      storeId: shop.store.id,
      platform: 'platform_b',
      siteUrl: 'https://exchange-shop.example',
      ttlSeconds: 600,
    });
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/connect/exchange',
      payload: { code, site_url: 'https://exchange-shop.example' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['api_key', 'connection_id', 'store', 'webhook_secret']);
    expect(body.connection_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.store).toEqual({
      id: shop.store.id,
      name: 'Exchange Shop',
      slug: shop.store.slug,
      tracking_url: `${t.baseUrl}/s/${shop.store.slug}/track`,
      dashboard_url: expect.stringMatching(new RegExp(`^${t.baseUrl}/.*${shop.store.id}`)),
    });
  });

  it('GET /connection answers {connection, store}: id, platform, status, status_detail, shop_url, orders_synced, last_order_at', async () => {
    const c = await connectedPlugin(t, { push: false });
    const res = await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(c.apiKey) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['connection', 'store']);
    expect(Object.keys(body.connection).sort()).toEqual(
      ['id', 'last_order_at', 'orders_synced', 'platform', 'shop_url', 'status', 'status_detail'].sort(),
    );
    expect(body.connection).toMatchObject({ id: c.connectionId, platform: 'platform_a', orders_synced: 0, last_order_at: null });
    expect(Object.keys(body.store).sort()).toEqual(['dashboard_url', 'id', 'name', 'slug', 'tracking_url']);
    await mirroredOrder(c, 'C-1');
    const after = (await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(c.apiKey) })).json();
    expect(after.connection.orders_synced).toBe(1);
    expect(after.connection.last_order_at).toMatch(ISO_UTC);
  });
});

describe('the heartbeat takes every field of the spec, all optional (CON-3)', () => {
  it('records plugin_version, platform_version, shop_name, currency, site_url and push_url null; {} is accepted; a site_url that is no uri is 400', async () => {
    const c = await connectedPlugin(t, { push: false });
    const put = (payload: object) => t.request({ method: 'PUT', url: '/api/v1/connection', headers: bearer(c.apiKey), payload });
    const full = await put({
      plugin_version: '2.0.0',
      platform_version: '8.9',
      shop_name: 'Heartbeat shop',
      currency: 'mad',
      site_url: `${c.siteUrl}/`,
      push_url: null,
    });
    expect(full.statusCode, full.body).toBe(200);
    const [row] = await t.orm.em
      .fork()
      .execute<{ plugin_version: string; platform_version: string; shop_name: string; currency: string; push_url: string | null }[]>(
        `select plugin_version, platform_version, shop_name, currency, push_url from connections where id = ?`,
        [c.connectionId],
      );
    expect(row).toEqual({ plugin_version: '2.0.0', platform_version: '8.9', shop_name: 'Heartbeat shop', currency: 'MAD', push_url: null });
    expect((await put({})).statusCode).toBe(200);
    const bad = await put({ site_url: 'not a url' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', param: 'site_url' });
  });
});

describe('GET /connection/updates pages the waiting updates by limit (EP-UPD-1)', () => {
  it('gives 50 by default, and exactly limit when asked; PUT /connection answers {connection, store}', async () => {
    const c = await connectedPlugin(t, { push: false });
    const beat = await t.request({
      method: 'PUT',
      url: '/api/v1/connection',
      headers: bearer(c.apiKey),
      payload: { plugin_version: '1.0.1', push_url: null },
    });
    expect(beat.statusCode, beat.body).toBe(200);
    expect(Object.keys(beat.json()).sort()).toEqual(['connection', 'store']);
    const orders = Array.from({ length: 51 }, (_, i) => ({
      external_id: `L50-${i}`,
      number: `#L50-${i}`,
      status: 'wc-processing',
      totals: { total: 1 },
    }));
    for (const part of [orders.slice(0, 50), orders.slice(50)]) {
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/orders/batch',
        headers: bearer(c.apiKey),
        payload: { orders: part, backfill: true },
      });
      expect(res.statusCode, res.body).toBe(200);
      for (const r of res.json().results) {
        const patched = await t.request({
          method: 'PATCH',
          url: `/api/v1/orders/${r.id}`,
          headers: bearer(c.secret),
          payload: { status: 'shipped' },
        });
        expect(patched.statusCode, patched.body).toBe(200);
      }
    }
    const pull = (q: string) => t.request({ method: 'GET', url: `/api/v1/connection/updates${q}`, headers: bearer(c.apiKey) });
    expect((await pull('')).json().updates).toHaveLength(50);
    expect((await pull('?limit=1')).json().updates).toHaveLength(1);
    expect((await pull('?limit=100')).json().updates).toHaveLength(51);
  });
});

describe('every address the API returns starts with the base host exactly (VER-2)', () => {
  it('store url, tracking_url, an order page_url and a checkout url start with PUBLIC_URL, never a www. variant', async () => {
    const me = (await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) })).json();
    const order = (
      await t.request({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(s.secret),
        payload: { external_id: `v-${process.pid}`, totals: { total: 2 } },
      })
    ).json().order;
    const product = await addProduct(t, s.store.id, { name: 'Mint' });
    const checkout = await t.request({
      method: 'POST',
      url: '/api/v1/checkout/sessions',
      headers: bearer(s.secret),
      payload: { items: [{ product_id: product.id, quantity: 1 }] },
    });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const urls = [me.store.url, me.store.tracking_url, order.tracking.page_url, checkout.json().url];
    expect(urls.every((url) => typeof url === 'string')).toBe(true);
    for (const url of urls) {
      expect(new URL(url).host.startsWith('www.'), url).toBe(false);
      expect(url.startsWith(`${t.baseUrl}/`), url).toBe(true);
      expect(new URL(url).host).toBe(new URL(t.baseUrl).host);
    }
    expect(me.api_version).toBe('v1');
  });
});
