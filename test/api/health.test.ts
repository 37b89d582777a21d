import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

// The unreachable cases (503 from /readyz, 200 from /healthz) are in errors.test.ts.
describe('health probes live outside /api/v1 and need no key', () => {
  it('GET /healthz answers 200 {ok: true, version} while the process is up', async () => {
    const res = await t.request({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(res.json()).toEqual({ ok: true, version });
  });

  it('GET /readyz answers 200 when PostgreSQL and Temporal are both reachable', async () => {
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, database: true, temporal: true });
  });

  it('probes are never rate limited', async () => {
    const ip = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 80 }, () => t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: ip })));
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
  });

  it('probes are not under /api/v1', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v1/healthz' })).statusCode).toBe(404);
  });
});
