import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

const me = (headers: Record<string, string>) => t.request({ method: 'GET', url: '/api/v1/me', headers });
const browser = (origin: string) => ({ origin, 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' });

describe('the browser rule: Origin together with Sec-Fetch-Mode means a browser, where secret keys are refused', () => {
  it('a secret key sent from a browser is 403 forbidden', async () => {
    const res = await me({ ...bearer(s.secret), ...browser('https://shop.example') });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a legacy key and a connection key sent from a browser are 403 too', async () => {
    const legacy = await addKey(t.orm, s.store.id, { kind: 'legacy' });
    const connection = await createTestConnection(t.orm, s.store.id, 'platform_a');
    expect((await me({ ...bearer(legacy.key), ...browser('https://a.example') })).statusCode).toBe(403);
    expect((await me({ ...bearer(connection.key), ...browser('https://a.example') })).statusCode).toBe(403);
  });

  it('a secret key with an Origin but no Sec-Fetch-Mode (a server) is allowed, without CORS headers', async () => {
    const res = await me({ ...bearer(s.secret), origin: 'https://shop.example' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a secret key with Sec-Fetch-Mode but no Origin is allowed', async () => {
    expect((await me({ ...bearer(s.secret), 'sec-fetch-mode': 'navigate' })).statusCode).toBe(200);
  });
});

describe('a publishable key works only from the websites on its allowed list', () => {
  it('from an allowed website it is 200 with Access-Control-Allow-Origin echoing the origin', async () => {
    const res = await me({ ...bearer(s.publishable), ...browser(s.origin) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(s.origin);
    expect(res.headers.vary).toMatch(/origin/i);
  });

  it('lets the browser read the request id and rate-limit headers', async () => {
    const res = await me({ ...bearer(s.publishable), ...browser(s.origin) });
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'])
      expect(exposed).toContain(h);
  });

  it('from a website not on its list it is 403 forbidden, without CORS headers', async () => {
    const res = await me({ ...bearer(s.publishable), ...browser('https://evil.example') });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('an Origin that only resembles an allowed one is refused (other scheme, port or subdomain)', async () => {
    for (const origin of [
      'http://shop.example',
      'https://shop.example:8443',
      'https://www.shop.example',
      'https://shop.example.evil.example',
    ]) {
      expect((await me({ ...bearer(s.publishable), origin })).statusCode, origin).toBe(403);
    }
  });

  it('an Origin not on the list is refused even without Sec-Fetch-Mode', async () => {
    expect((await me({ ...bearer(s.publishable), origin: 'https://evil.example' })).statusCode).toBe(403);
  });

  it('a key allowed on several websites works from each of them', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'publishable', origins: ['https://a.example', 'http://localhost:5173'] });
    expect((await me({ ...bearer(k.key), ...browser('https://a.example') })).statusCode).toBe(200);
    expect((await me({ ...bearer(k.key), ...browser('http://localhost:5173') })).statusCode).toBe(200);
    expect((await me({ ...bearer(k.key), ...browser(s.origin) })).statusCode).toBe(403);
  });

  it("a refusal the key caused itself (a missing permission) still reaches the browser's code", async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/orders', headers: { ...bearer(s.publishable), ...browser(s.origin) } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe(s.origin);
  });
});

describe('CORS preflights are answered for the allowed websites of publishable keys', () => {
  const preflight = (origin?: string, method = 'GET') =>
    t.request({
      method: 'OPTIONS',
      url: '/api/v1/me',
      headers: {
        ...(origin ? { origin } : {}),
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('an allowed origin gets 204 with allow-origin, allow-headers and allow-methods', async () => {
    const res = await preflight(s.origin);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(s.origin);
    const allowHeaders = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['authorization', 'x-api-key', 'content-type']) expect(allowHeaders).toContain(h);
    const allowMethods = String(res.headers['access-control-allow-methods']);
    expect(allowMethods).toContain('GET');
    expect(allowMethods).toContain('POST');
    expect(res.headers.vary).toMatch(/origin/i);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('a preflight for a POST route is answered too', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/api/v1/checkout/sessions',
      headers: { origin: s.origin, 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
  });

  it('an unknown origin is refused with 403 and no allow-origin', async () => {
    const res = await preflight('https://evil.example');
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a preflight without an Origin is refused', async () => {
    expect((await preflight()).statusCode).toBe(403);
  });

  it('an origin listed only by a revoked key is refused', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'publishable', origins: ['https://gone.example'] });
    expect((await preflight('https://gone.example')).statusCode).toBe(204);
    await t.orm.em.fork().execute('update api_keys set revoked_at = now() where id = ?', [k.id]);
    expect((await preflight('https://gone.example')).statusCode).toBe(403);
  });

  it('preflights carry the common headers', async () => {
    const res = await preflight(s.origin);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-ratelimit-limit']).toBeTruthy();
  });
});
