import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { bearer, createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { RATE_WINDOW_WAIT_MS, startInOneRateWindow } from '../helpers/rate-window.js';

let t: TestApp;
let free: TestStore;
let paid: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  free = await createTestStore(t.orm);
  paid = await createTestStore(t.orm, { plan: 'paid' });
});
afterAll(() => t.close());

// Counters run per calendar minute: start each test with enough of the minute left that it ends inside it
// (the slow ones wait again, for more, just before they count).
beforeEach(() => startInOneRateWindow(t.orm, 15_000), RATE_WINDOW_WAIT_MS);

const call = (options: InjectOptions, ip = randomLoopbackIp()) => t.app.inject({ remoteAddress: ip, ...options });
const me = (key: string | undefined, ip?: string, headers: Record<string, string> = {}) =>
  call({ method: 'GET', url: '/api/v1/me', headers: { ...(key ? bearer(key) : {}), ...headers } }, ip);
const statuses = (list: LightMyRequestResponse[]) =>
  list.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});
const freshSecret = async (storeId = free.store.id) => (await addKey(t.orm, storeId, { kind: 'secret' })).key;
const setPlan = (storeId: string, plan: 'free' | 'paid') =>
  t.orm.em.fork().execute('update stores set plan = ? where id = ?', [plan, storeId]);

describe('a secret key gets 60 requests a minute on the free plan, exactly, even in parallel', () => {
  it('100 parallel requests on a fresh key give exactly 60 successes and 40 × 429', async () => {
    const key = await freshSecret();
    const all = await Promise.all(Array.from({ length: 100 }, () => me(key)));
    // All inside one counting minute, or the numbers would legitimately differ.
    expect(new Set(all.map((r) => r.headers['x-ratelimit-reset'])).size).toBe(1);
    expect(statuses(all)).toEqual({ 200: 60, 429: 40 });
    expect(all.every((r) => r.headers['x-ratelimit-limit'] === '60')).toBe(true);
  });

  it('X-RateLimit-Remaining counts down by one per request', async () => {
    const key = await freshSecret();
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await me(key)).headers['x-ratelimit-remaining']);
    expect(remaining).toEqual(['59', '58', '57']);
  });

  it('429 is rate_limited with Retry-After in whole seconds until the minute ends', async () => {
    const key = await freshSecret();
    for (let i = 0; i < 60; i++) expect((await me(key)).statusCode).toBe(200);
    const res = await me(key);
    expect(res.statusCode).toBe(429);
    expect(res.json().error).toMatchObject({ code: 'rate_limited', request_id: res.headers['x-request-id'] });
    const retryAfter = String(res.headers['retry-after']);
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(Math.abs(Number(res.headers['x-ratelimit-reset']) - Date.now() / 1000 - Number(retryAfter))).toBeLessThanOrEqual(2);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('one key over its limit does not slow another key of the same store', async () => {
    const key = await freshSecret();
    await Promise.all(Array.from({ length: 61 }, () => me(key)));
    expect((await me(await freshSecret())).statusCode).toBe(200);
  });
});

describe('a paid store gets 300 a minute per secret key, and a plan change applies at the next request', () => {
  it('a paid store’s secret key is allowed 300 a minute', async () => {
    const key = await freshSecret(paid.store.id);
    const all = await Promise.all(Array.from({ length: 100 }, () => me(key)));
    expect(statuses(all)).toEqual({ 200: 100 });
    expect(all[0]!.headers['x-ratelimit-limit']).toBe('300');
    expect(all[0]!.json().limits.requests_per_minute).toBe(300);
  });

  it('moving to paid lifts the limit at once, and moving back to free brings it back at once', async () => {
    const s = await createTestStore(t.orm);
    const key = s.secret;
    expect((await me(key)).headers['x-ratelimit-limit']).toBe('60');
    await setPlan(s.store.id, 'paid');
    const afterUpgrade = await Promise.all(Array.from({ length: 69 }, () => me(key)));
    expect(statuses(afterUpgrade)).toEqual({ 200: 69 });
    expect(afterUpgrade[0]!.headers['x-ratelimit-limit']).toBe('300');
    await setPlan(s.store.id, 'free');
    const afterDowngrade = await me(key);
    expect(afterDowngrade.statusCode).toBe(429);
    expect(afterDowngrade.headers['x-ratelimit-limit']).toBe('60');
  });
});

describe('a publishable key is limited per key and per visitor IP', () => {
  it('on the free plan one visitor IP gets 30 a minute, while another IP still passes', async () => {
    const s = await createTestStore(t.orm);
    const visitor = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 40 }, () => me(s.publishable, visitor)));
    expect(statuses(all)).toEqual({ 200: 30, 429: 10 });
    const over = all.find((r) => r.statusCode === 429)!;
    expect(over.headers['x-ratelimit-limit']).toBe('30');
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expect((await me(s.publishable, randomLoopbackIp())).statusCode).toBe(200);
  });

  it('on a paid store one visitor IP gets 60 a minute', async () => {
    const s = await createTestStore(t.orm, { plan: 'paid' });
    const visitor = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 70 }, () => me(s.publishable, visitor)));
    expect(statuses(all)).toEqual({ 200: 60, 429: 10 });
  });

  it('on the free plan the key itself gets 600 a minute across all visitors', { timeout: RATE_WINDOW_WAIT_MS + 60_000 }, async () => {
    const s = await createTestStore(t.orm);
    await startInOneRateWindow(t.orm, 45_000);
    const visitors = Array.from({ length: 25 }, () => randomLoopbackIp());
    const all: LightMyRequestResponse[] = [];
    for (const visitor of visitors) all.push(...(await Promise.all(Array.from({ length: 24 }, () => me(s.publishable, visitor)))));
    expect(statuses(all)).toEqual({ 200: 600 });
    const over = await me(s.publishable, randomLoopbackIp());
    expect(over.statusCode).toBe(429);
    expect(over.headers['x-ratelimit-limit']).toBe('600');
  });
});

describe('keyless requests and failed keys count against the client IP: 60 a minute', () => {
  it('a flood of wrong keys from one IP ends in 429, exactly after 60', async () => {
    const ip = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 80 }, () => me(`svc_live_sk_${'0'.repeat(48)}`, ip)));
    expect(statuses(all)).toEqual({ 401: 60, 429: 20 });
  });

  it('malformed and missing keys count the same way', async () => {
    const ip = randomLoopbackIp();
    for (let i = 0; i < 30; i++) await me(undefined, ip);
    for (let i = 0; i < 30; i++) await me('garbage', ip);
    expect((await me(undefined, ip)).statusCode).toBe(429);
  });

  it('a keyless route counts against the IP too', async () => {
    const ip = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 61 }, () => call({ method: 'GET', url: '/api/v1/openapi.json' }, ip)));
    expect(statuses(all)).toEqual({ 200: 60, 429: 1 });
  });

  it('a key refused in the URL counts against the IP', async () => {
    const ip = randomLoopbackIp();
    const first = await call({ method: 'GET', url: `/api/v1/me?api_key=${free.secret}` }, ip);
    const second = await call({ method: 'GET', url: `/api/v1/me?api_key=${free.secret}` }, ip);
    expect(first.statusCode).toBe(400);
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
  });

  it('a valid key from a flooded IP still works: it is counted on its own', async () => {
    const ip = randomLoopbackIp();
    await Promise.all(Array.from({ length: 61 }, () => me(undefined, ip)));
    expect((await me(free.secret, ip)).statusCode).toBe(200);
  });

  it('health probes are never counted', async () => {
    const ip = randomLoopbackIp();
    await Promise.all(Array.from({ length: 70 }, () => call({ method: 'GET', url: '/healthz' }, ip)));
    expect((await me(undefined, ip)).headers['x-ratelimit-remaining']).toBe('59');
  });
});

describe('the count is shared by every API process', () => {
  it('two app instances on one database share one key’s minute', { timeout: RATE_WINDOW_WAIT_MS + 30_000 }, async () => {
    const other = await createTestApp();
    try {
      const key = await freshSecret();
      await startInOneRateWindow(t.orm, 15_000);
      const here = await Promise.all(Array.from({ length: 30 }, () => me(key)));
      const there = await Promise.all(
        Array.from({ length: 40 }, () => other.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })),
      );
      expect(statuses([...here, ...there])).toEqual({ 200: 60, 429: 10 });
    } finally {
      await other.close();
    }
  });
});
