// The SDK on a bad network, against loopback servers and the live service: a timeout on a server that never answers,
// the caller's own signal, a dropped connection retried on idempotent calls only, 503 retried with back-off, the
// client header (and the CORS preflight that allows it), and .all({limit}).
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreCommerceClient, SDK_VERSION, StoreCommerceConnectionError, StoreCommerceError } from '../../sdk/src/index.js';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp & { baseUrl: string };
let s: TestStore;
beforeAll(async () => {
  t = await createListeningTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
});
afterAll(() => t.close());

const listen = async (server: Server) => {
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
};
const close = (server: Server) => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done())));

/** A server that reads each request and never answers; counts the requests. */
async function silentServer() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer(() => void requests++);
  server.on('connection', (socket) => sockets.add(socket));
  const url = await listen(server);
  return { url, requests: () => requests, close: () => (sockets.forEach((x) => x.destroy()), close(server)) };
}

type Action = 'drop' | '503' | 'forward';
/** A proxy to the live service that plays the next queued action per request (then forwards) and records what came. */
async function flakyProxy() {
  const actions: Action[] = [];
  const seen: { method: string; path: string; headers: IncomingHttpHeaders; action: Action }[] = [];
  const target = new URL(t.baseUrl);
  const server = createServer((req, res) => {
    const action = actions.shift() ?? 'forward';
    seen.push({ method: req.method!, path: req.url!, headers: req.headers, action });
    if (action === 'drop') return void req.socket.destroy();
    if (action === '503') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => (res.writeHead(answer.statusCode!, answer.headers), answer.pipe(res)),
    );
    req.pipe(upstream);
  });
  const url = await listen(server);
  return { url: `${url}/api/v1`, actions, seen, close: () => close(server) };
}

describe('timeouts and the caller’s signal', () => {
  it('a server that never answers: the attempt is abandoned after timeoutMs, a GET retried, then StoreCommerceConnectionError', async () => {
    const silent = await silentServer();
    try {
      const client = createStoreCommerceClient({
        baseUrl: silent.url,
        apiKey: 'svc_live_sk_x',
        timeoutMs: 300,
        retry: { maxRetries: 2, initialDelayMs: 10 },
      });
      const error = await client.orders.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreCommerceConnectionError);
      expect(error).toBeInstanceOf(StoreCommerceError);
      expect(error).toMatchObject({ timedOut: true, attempts: 3, status: 0, code: 'unavailable' });
      expect(silent.requests()).toBe(3);
    } finally {
      await silent.close();
    }
  });

  it('a POST that is not an upsert (a checkout session) is tried once: the first attempt may have been carried out', async () => {
    const silent = await silentServer();
    try {
      const client = createStoreCommerceClient({ baseUrl: silent.url, timeoutMs: 300, retry: { maxRetries: 3, initialDelayMs: 10 } });
      const error = await client.checkout
        .createSession({ items: [{ product_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'StoreCommerceConnectionError', timedOut: true, attempts: 1 });
      expect(silent.requests()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it("the caller's signal aborts at once with its own reason, and is never retried", async () => {
    const silent = await silentServer();
    try {
      const client = createStoreCommerceClient({ baseUrl: silent.url, timeoutMs: 60_000, retry: { maxRetries: 3 } });
      const controller = new AbortController();
      const pending = client.me({ signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(new Error('the shopper left')), 200);
      const error = await pending;
      expect(error).not.toBeInstanceOf(StoreCommerceError);
      expect((error as Error).message).toBe('the shopper left');
      expect(silent.requests()).toBe(1);
    } finally {
      await silent.close();
    }
  });
});

describe('against the live service through a flaky proxy', () => {
  it('an upsert whose connection dropped is sent again and creates one order; the client header names the SDK', async () => {
    const proxy = await flakyProxy();
    try {
      const client = createStoreCommerceClient({ baseUrl: proxy.url, apiKey: s.secret, retry: { initialDelayMs: 10 } });
      proxy.actions.push('drop');
      const first = await client.orders.upsert({ external_id: 'dropped-1', totals: { total: 10 } });
      expect(first.action).toBe('created');
      expect(proxy.seen.map((r) => r.action)).toEqual(['drop', 'forward']);
      expect(proxy.seen.every((r) => r.headers['x-store-commerce-client'] === `sdk-js/${SDK_VERSION}`)).toBe(true);
      const all = await client.orders.list({ external_id: 'dropped-1' }).all();
      expect(all).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('a dropped webhook-endpoint creation (not idempotent) is not sent again: StoreCommerceConnectionError after one attempt', async () => {
    const proxy = await flakyProxy();
    try {
      const client = createStoreCommerceClient({ baseUrl: proxy.url, apiKey: s.secret, retry: { initialDelayMs: 10 } });
      proxy.actions.push('drop');
      const error = await client.webhooks.create({ url: 'https://hooks.example/a' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'StoreCommerceConnectionError', timedOut: false, attempts: 1 });
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('a 503 without Retry-After is retried after a jittered back-off', async () => {
    const proxy = await flakyProxy();
    try {
      const client = createStoreCommerceClient({ baseUrl: proxy.url, apiKey: s.secret, retry: { initialDelayMs: 10 } });
      proxy.actions.push('503', '503');
      expect((await client.me()).store.id).toBe(s.store.id);
      expect(proxy.seen.map((r) => r.action)).toEqual(['503', '503', 'forward']);
    } finally {
      await proxy.close();
    }
  });

  it('.all({limit}) stops at limit items and fetches no page beyond them', async () => {
    const proxy = await flakyProxy();
    try {
      const direct = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: s.secret });
      await direct.orders.batch(Array.from({ length: 7 }, (_, i) => ({ external_id: `all-limit-${i}`, totals: { total: 1 + i } })));
      const client = createStoreCommerceClient({ baseUrl: proxy.url, apiKey: s.secret });
      const five = await client.orders.list({ limit: 2 }).all({ limit: 5 });
      expect(five).toHaveLength(5);
      expect(proxy.seen).toHaveLength(3);
      expect(await client.orders.list({ limit: 2 }).all({ limit: 0 })).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('CORS allows the client header', () => {
  it('a preflight from an allowed website asking for X-Store-Commerce-Client is allowed to send it', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/api/v1/products',
      headers: { origin: s.origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-store-commerce-client' },
    });
    expect(res.statusCode).toBe(204);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toContain('x-store-commerce-client');
  });
});
