import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ENDPOINTS } from '../../api/access.js';
import { bearer, randomLoopbackIp } from '../helpers/app.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { RATE_WINDOW_WAIT_MS, startInOneRateWindow } from '../helpers/rate-window.js';
import { buildPlumbingApp, type PlumbingApp } from './plumbing-app.js';

let t: PlumbingApp;
let s: TestStore;
let narrowKey: string;
beforeAll(async () => {
  t = await buildPlumbingApp({
    routes(app) {
      app.post('/api/v1/__echo', { config: { access: ENDPOINTS['POST /orders'] } }, async (request) => request.body);
    },
  });
  s = await createTestStore(t.orm);
  narrowKey = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['products:read'] })).key;
});
afterAll(() => t.close());

/** Checks the five headers spec point 4 puts on every response. */
function expectCommonHeaders(res: LightMyRequestResponse) {
  const h = res.headers;
  expect(h['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(h['cache-control']).toBe('no-store');
  const limit = Number(h['x-ratelimit-limit']);
  const remaining = Number(h['x-ratelimit-remaining']);
  const reset = Number(h['x-ratelimit-reset']);
  expect(Number.isInteger(limit) && limit > 0).toBe(true);
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
  const now = Date.now() / 1000;
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(now + 60);
  if (res.statusCode >= 400 && h['content-type']?.toString().startsWith('application/json')) {
    expect(res.json().error.request_id).toBe(h['x-request-id']);
  }
}

const json = { 'content-type': 'application/json' };
const cases: [string, number, () => InjectOptions][] = [
  ['a success', 200, () => ({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) })],
  [
    'a success with a body',
    200,
    () => ({ method: 'POST', url: '/api/v1/__echo', headers: { ...bearer(s.secret), ...json }, payload: '{"a":1}' }),
  ],
  ['a keyless success', 200, () => ({ method: 'GET', url: '/api/v1/openapi.json' })],
  ['401 without a key', 401, () => ({ method: 'GET', url: '/api/v1/me' })],
  ['401 with a malformed key', 401, () => ({ method: 'GET', url: '/api/v1/me', headers: bearer('nope') })],
  [
    '403 for a missing permission',
    403,
    () => ({ method: 'POST', url: '/api/v1/__echo', headers: { ...bearer(narrowKey), ...json }, payload: '{}' }),
  ],
  ['404 for an unknown route', 404, () => ({ method: 'GET', url: '/api/v1/nothing-here', headers: bearer(s.secret) })],
  ['404 for a wrong method on a known path', 404, () => ({ method: 'PUT', url: '/api/v1/me', headers: bearer(s.secret) })],
  [
    '400 for malformed JSON',
    400,
    () => ({ method: 'POST', url: '/api/v1/__echo', headers: { ...bearer(s.secret), ...json }, payload: '{"a":' }),
  ],
  [
    '413 for a body over 1 MB',
    413,
    () => ({
      method: 'POST',
      url: '/api/v1/__echo',
      headers: { ...bearer(s.secret), ...json },
      payload: JSON.stringify({ a: 'x'.repeat(1_100_000) }),
    }),
  ],
  ['400 for a malformed URL', 400, () => ({ method: 'GET', url: '/api/v1/orders/%E0%A4%A', headers: bearer(s.secret) })],
  ['400 for a key in the URL', 400, () => ({ method: 'GET', url: `/api/v1/me?api_key=${s.secret}` })],
  ['a health probe', 200, () => ({ method: 'GET', url: '/healthz' })],
];

describe('every response carries X-Request-Id, X-RateLimit-* and Cache-Control: no-store', () => {
  for (const [name, status, options] of cases) {
    it(`on ${name}`, async () => {
      const res = await t.request(options());
      expect(res.statusCode).toBe(status);
      expectCommonHeaders(res);
    });
  }

  it('on 429, with the limit exhausted and Remaining at 0', { timeout: RATE_WINDOW_WAIT_MS + 15_000 }, async () => {
    // 61 requests counted in one rate-limit minute; across a boundary the last would be a 401.
    await startInOneRateWindow(t.orm, 15_000);
    const ip = randomLoopbackIp();
    let res: LightMyRequestResponse | undefined;
    for (let i = 0; i < 61; i++) res = await t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip });
    expect(res!.statusCode).toBe(429);
    expectCommonHeaders(res!);
    expect(res!.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('gives each response its own request id', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) })));
    expect(a!.headers['x-request-id']).not.toBe(b!.headers['x-request-id']);
  });

  it('ignores a request id sent by the client', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/me', headers: { ...bearer(s.secret), 'x-request-id': 'req_mine' } });
    expect(res.headers['x-request-id']).not.toBe('req_mine');
  });

  it('X-RateLimit-Remaining of keyless requests counts down per client IP', { timeout: RATE_WINDOW_WAIT_MS + 5_000 }, async () => {
    await startInOneRateWindow(t.orm, 5_000);
    const ip = randomLoopbackIp();
    const first = await t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip });
    const second = await t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip });
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });
});
