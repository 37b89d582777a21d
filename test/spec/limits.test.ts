// Spec audit (docs/spec-coverage.md): the Limits table's values where no other file pins them down.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { PULL_INTERVAL_MS, STATE_TTL_MS } from '@store-commerce/plugin-kit';
import { ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop } from '../../examples/plugin/shop.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

describe('the limits of the spec are the defaults of the configuration (CONTRACT.md, Environment)', () => {
  it('connect code 10 minutes, checkout link 24 hours, 5 wrong contacts then 15 minutes, webhook timeout 8 seconds', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      connectCodeTtlSeconds: 600,
      checkoutTtlSeconds: 86_400,
      trackingMaxWrongContact: 5,
      trackingLockoutSeconds: 900,
      webhookTimeoutMs: 8000,
    });
  });

  it('{base_url} is PUBLIC_URL + /api/v1, used exactly as given', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example/' })).toMatchObject({
      publicUrl: 'https://shop.example',
      baseUrl: 'https://shop.example/api/v1',
    });
  });
});

let t: TestApp;
let s: TestStore;
let webhookKey: string;
let connectionKey: string;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
  webhookKey = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'webhooks:write'] })).key;
  connectionKey = (await createTestConnection(t.orm, s.store.id, 'platform_a')).key;
});
afterAll(() => t.close());

describe('wire conventions', () => {
  it('answers JSON in UTF-8, non-ASCII text intact', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: `utf8-${process.pid}`, totals: { total: 1 }, note: 'Thé à la menthe ✓' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json; charset=utf-8$/i);
    expect(res.json().order.note).toBe('Thé à la menthe ✓');
  });
});

describe('rate limit allowances per plan (Limits: rate limits per minute)', () => {
  it('a paid store’s publishable key is allowed 3000 a minute (GET /me limits.requests_per_minute)', async () => {
    const paid = await createTestStore(t.orm, { plan: 'paid' });
    const res = await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(paid.publishable) });
    expect(res.statusCode).toBe(200);
    expect(res.json().limits.requests_per_minute).toBe(3000);
  });
});

describe('every route with a body answers a body over 1 MB with 413 payload_too_large', () => {
  const big = () => JSON.stringify({ note: 'x'.repeat(1_100_000) });
  const routes: [string, 'POST' | 'PATCH' | 'PUT', string, () => string | undefined][] = [
    ['POST /orders', 'POST', '/api/v1/orders', () => s.secret],
    ['POST /orders/batch', 'POST', '/api/v1/orders/batch', () => s.secret],
    ['PATCH /orders/{id}', 'PATCH', '/api/v1/orders/00000000-0000-4000-8000-000000000000', () => s.secret],
    ['POST /external-products/batch', 'POST', '/api/v1/external-products/batch', () => connectionKey],
    ['POST /checkout/sessions', 'POST', '/api/v1/checkout/sessions', () => s.secret],
    ['POST /webhooks', 'POST', '/api/v1/webhooks', () => webhookKey],
    ['POST /connect/exchange', 'POST', '/api/v1/connect/exchange', () => undefined],
    ['PUT /connection', 'PUT', '/api/v1/connection', () => connectionKey],
    ['POST /connection/updates/ack', 'POST', '/api/v1/connection/updates/ack', () => connectionKey],
  ];
  it.each(routes)('%s', async (_name, method, url, key) => {
    const k = key();
    const res = await t.request({
      method,
      url,
      headers: { 'content-type': 'application/json', ...(k ? bearer(k) : {}) },
      payload: big(),
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'payload_too_large', request_id: res.headers['x-request-id'] });
  });
});

describe('the reference plugin keeps its connect state 15 minutes and pulls every 15 minutes', () => {
  const plugin = () =>
    new ReferencePlugin({
      serviceUrl: 'http://127.0.0.1:9',
      platform: 'platform_a',
      siteUrl: 'https://shop.example',
      shop: new InMemoryShop(),
    });

  it('the constants are the spec’s', () => {
    expect(STATE_TTL_MS).toBe(15 * 60 * 1000);
    expect(PULL_INTERVAL_MS).toBe(15 * 60 * 1000);
  });

  it('a state it did not issue, or one older than 15 minutes, is refused before any exchange', async () => {
    const p = plugin();
    expect(await p.completeConnect(new URLSearchParams({ state: 'not-mine', svc_code: 'c' }), 'admin')).toEqual({
      ok: false,
      error: 'unknown or expired state',
    });
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    try {
      const state = new URL(p.connectUrl('https://shop.example/wp-admin/connect', 'admin')).searchParams.get('state')!;
      clock.mockReturnValue(now + STATE_TTL_MS + 1);
      expect(await p.completeConnect(new URLSearchParams({ state, svc_code: 'c' }), 'admin')).toEqual({
        ok: false,
        error: 'unknown or expired state',
      });
    } finally {
      clock.mockRestore();
    }
  });

  it('the connect page address carries site_url, return_url, state, name, currency and v', () => {
    const url = new URL(plugin().connectUrl('https://shop.example/wp-admin/connect', 'admin'));
    expect(url.pathname).toBe('/connect/platform_a');
    expect([...url.searchParams.keys()].sort()).toEqual(['currency', 'name', 'return_url', 'site_url', 'state', 'v']);
    expect(url.searchParams.get('site_url')).toBe('https://shop.example');
  });

  it('a fresh state with svc_error ends the flow with that error, without an exchange', async () => {
    const p = plugin();
    const state = new URL(p.connectUrl('https://shop.example/wp-admin/connect', 'admin')).searchParams.get('state')!;
    expect(await p.completeConnect(new URLSearchParams({ state, svc_error: 'access_denied' }), 'admin')).toEqual({
      ok: false,
      error: 'access_denied',
    });
  });
});
