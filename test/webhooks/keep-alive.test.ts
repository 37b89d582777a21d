// Many stores' endpoints can be one receiving host (a plugin platform's): a dispatcher's sends to it must
// reuse their connections, not open and close one per delivery past a small pool of idle ones.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH } from '../../activities/webhooks/lane.js';
import { keepAliveAgents, postOnce } from '../../services/outbound/send.js';

let server: http.Server;
let connections = 0;
let requests = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    req.resume();
    // Answers after a moment, as receivers do: every send of a burst is in flight at once.
    req.on('end', () => setTimeout(() => res.end('ok'), 30));
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', () => connections++);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe("a dispatcher's sends to one host", () => {
  it('reuse as many connections as were in flight: two bursts of 60 open 60 connections, not 60 + 44', async () => {
    const agents = keepAliveAgents(DISPATCH.limits.total);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const burst = () =>
      Promise.all(
        Array.from({ length: 60 }, () =>
          postOnce({
            url,
            headers: { 'content-type': 'application/json' },
            body: '{}',
            timeoutMs: 5_000,
            policy: { allowLoopback: true },
            agents,
          }),
        ),
      );
    try {
      const first = await burst();
      const second = await burst();
      expect([...first, ...second].every((r) => r.ok)).toBe(true);
      expect(requests).toBe(120);
      // With at most 16 idle connections kept (the old pool), the second burst opened 44 new ones.
      expect(connections).toBe(60);
    } finally {
      agents.destroy();
    }
  });
});
