import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLoopStep } from '../../bench/lib/open-loop.js';

// A server that answers one request at a time, 20 ms each: 50 requests/s at most, whatever is offered.
let server: Server;
let url = '';
beforeAll(async () => {
  let busyUntil = 0;
  server = createServer((req, res) => {
    const start = Math.max(Date.now(), busyUntil);
    busyUntil = start + 20;
    setTimeout(() => res.writeHead(req.url === '/fail' ? 500 : 200).end('{}'), busyUntil - Date.now());
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('the open-loop load of bench api-mixed', () => {
  it('keeps offering its rate to a slow server and counts the queueing from each due time', async () => {
    // 100 requests offered in 1 s to a server that serves 50/s: the last waits behind 99 × 20 ms of work,
    // due at 990 ms, answered near 2,000 ms: about 1 s more latency than the first, which a closed loop would never see.
    const r = await openLoopStep({
      url,
      rate: 100,
      seconds: 1,
      next: () => ({ kind: 'get', method: 'GET', path: '/', headers: {}, ok: [200] }),
    });
    expect(r.sent).toBe(100);
    expect(r.errors).toBe(0);
    expect(r.latencies).toHaveLength(100);
    // Request i is due at 10·i ms and answered near 20·(i + 1) ms: its latency grows by ~10 ms a request.
    const first = r.latencies.slice(0, 10).reduce((a, b) => a + b) / 10;
    const last = r.latencies.slice(-10).reduce((a, b) => a + b) / 10;
    expect(last - first).toBeGreaterThan(700);
  });

  it('counts an unexpected status as an error of its kind', async () => {
    const r = await openLoopStep({
      url,
      rate: 10,
      seconds: 0.5,
      next: () => ({ kind: 'bad', method: 'GET', path: '/fail', headers: {}, ok: [200] }),
    });
    expect(r.sent).toBe(5);
    expect(r.errors).toBe(5);
    expect(r.byKind.bad?.errors).toBe(5);
    expect(r.firstError).toContain('HTTP 500');
  });
});
