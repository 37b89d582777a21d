// Concurrency part of the reliability battery (issue 9): racing writers never produce two of a thing.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveConnection } from '../../services/connections/codes.js';
import { addProduct, pathOf, SHOPPER, sql } from '../catalog/fixtures.js';
import { bearer, createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { RATE_WINDOW_WAIT_MS, startInOneRateWindow } from '../helpers/rate-window.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const statuses = (list: LightMyRequestResponse[]) =>
  list.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});
const count = async (query: string, params: unknown[]) => Number((await sql<{ n: string }>(t, query, params))[0]!.n);

describe('racing writers of one thing produce one thing', () => {
  it('50 identical upserts at once give one order: one 201 created, 49 × 200 unchanged, one row, one creation event', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const body = {
      external_id: `race-50-${Date.now()}`,
      number: '1001',
      status: 'confirmed',
      totals: { total: 99.5 },
      customer: { name: 'Race' },
      items: [{ name: 'Tea', quantity: 2, unit_price: 49.75 }],
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => t.request({ method: 'POST', url: '/api/v1/orders', headers: bearer(s.secret), payload: body })),
    );
    expect(
      statuses(answers),
      answers
        .filter((r) => r.statusCode >= 300)
        .map((r) => r.body)
        .join('\n'),
    ).toEqual({ 201: 1, 200: 49 });
    expect(answers.map((r) => r.json().action).sort()).toEqual(['created', ...Array(49).fill('unchanged')]);
    expect(new Set(answers.map((r) => r.json().order.id)).size).toBe(1);
    expect(await count(`select count(*) as n from orders where store_id = ? and external_id = ?`, [s.store.id, body.external_id])).toBe(1);
    const id = answers[0]!.json().order.id;
    expect(await count(`select count(*) as n from order_events where order_id = ? and type = 'order.created'`, [id])).toBe(1);
  });

  it('20 racing exchanges of one connect code give one connection key (one 200, 19 × 400, one key row, one connection)', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const site = `https://race-${Date.now()}.example`;
    const { code } = await approveConnection(t.orm.em.fork(), {
      storeId: s.store.id,
      platform: 'platform_a',
      siteUrl: site,
      ttlSeconds: 600,
    });
    // Each from its own address: the keyless exchange is limited per IP, and this tests the race, not the limit.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/connect/exchange',
          remoteAddress: randomLoopbackIp(),
          payload: { code, site_url: site },
        }),
      ),
    );
    expect(statuses(answers)).toEqual({ 200: 1, 400: 19 });
    for (const r of answers.filter((a) => a.statusCode === 400)) expect(r.json().error.code).toBe('invalid_request');
    expect(await count(`select count(*) as n from api_keys where store_id = ? and connection_id is not null`, [s.store.id])).toBe(1);
    expect(await count(`select count(*) as n from connections where store_id = ?`, [s.store.id])).toBe(1);
    const winner = answers.find((r) => r.statusCode === 200)!.json();
    expect((await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(winner.api_key) })).statusCode).toBe(200);
  });

  it('10 shoppers racing for the last item: one order placed, nine told it sold out, stock 0, never negative', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const product = await addProduct(t, s.store.id, { name: 'Last one', price: 25, stock: 1 });
    const sessions = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.request({
          method: 'POST',
          url: '/api/v1/checkout/sessions',
          headers: bearer(s.secret),
          payload: { items: [{ product_id: product.id, quantity: 1 }] },
        }),
      ),
    );
    expect(statuses(sessions)).toEqual({ 201: 10 });
    const placed = await Promise.all(
      sessions.map((r) =>
        t.app.inject({
          method: 'POST',
          url: pathOf(r.json().url),
          remoteAddress: randomLoopbackIp(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(SHOPPER).toString(),
        }),
      ),
    );
    // 303 to the confirmation for the one who got it; 409 "sold out" for the others; never a 5xx.
    expect(
      statuses(placed),
      placed
        .filter((r) => r.statusCode >= 500)
        .map((r) => r.body)
        .join('\n'),
    ).toEqual({ 303: 1, 409: 9 });
    const [row] = await sql<{ stock: number }>(t, `select stock from products where id = ?`, [product.id]);
    expect(row!.stock).toBe(0);
    expect(await count(`select count(*) as n from orders where store_id = ? and source = 'native'`, [s.store.id])).toBe(1);
    expect(await count(`select count(*) as n from checkout_sessions where store_id = ? and status = 'used'`, [s.store.id])).toBe(1);
  });

  describe('a 60/minute key hit by 200 parallel requests', () => {
    // Counters run per calendar minute: start with enough of the minute left that all 200 land in it.
    beforeEach(() => startInOneRateWindow(t.orm, 15_000), RATE_WINDOW_WAIT_MS);

    it('exactly 60 succeed and 140 get 429 rate_limited', async () => {
      const s = await createTestStore(t.orm);
      const key = (await addKey(t.orm, s.store.id, { kind: 'secret' })).key;
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          t.app.inject({
            method: 'GET',
            url: i % 2 ? '/api/v1/me' : '/api/v1/orders?limit=1',
            remoteAddress: randomLoopbackIp(),
            headers: bearer(key),
          }),
        ),
      );
      expect(new Set(answers.map((r) => r.headers['x-ratelimit-reset'])).size).toBe(1);
      expect(statuses(answers)).toEqual({ 200: 60, 429: 140 });
      for (const r of answers.filter((a) => a.statusCode === 429)) {
        expect(r.json().error.code).toBe('rate_limited');
        expect(r.headers['retry-after']).toMatch(/^\d+$/);
      }
    });
  });
});
