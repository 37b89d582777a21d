import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { sharedReadiness, type Readiness } from '../../api/readiness.js';

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

describe('/readyz is anonymous, so a flood of it is bounded', () => {
  it('probes arriving together share one look at PostgreSQL and Temporal; a new look only after the ttl', async () => {
    let looks = 0;
    let open: (r: Readiness) => void = () => {};
    const probe = sharedReadiness(() => (looks++, new Promise<Readiness>((r) => (open = r))), 200);
    const waiting = Array.from({ length: 100 }, () => probe());
    open({ database: true, temporal: false });
    expect(await Promise.all(waiting)).toEqual(Array(100).fill({ database: true, temporal: false }));
    expect(looks).toBe(1);
    await probe();
    expect(looks).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    const next = probe();
    open({ database: true, temporal: true });
    expect(await next).toEqual({ database: true, temporal: true });
    expect(looks).toBe(2);
  });

  it('200 probes at once from one client all answer 200', async () => {
    const ip = randomLoopbackIp();
    const all = await Promise.all(Array.from({ length: 200 }, () => t.app.inject({ method: 'GET', url: '/readyz', remoteAddress: ip })));
    expect(all.map((r) => r.statusCode)).toEqual(Array(200).fill(200));
  });
});
