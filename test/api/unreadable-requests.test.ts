// Requests the server cannot read or will not take still get the spec's envelope, and keep-alive
// connections end cleanly (a full answer, then a normal close), never with a reset.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';

let t: TestApp;
let port: number;
let secretKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  secretKey = (await createTestStore(t.orm)).secret;
});
afterAll(() => t?.close());

interface Exchange {
  /** Every byte the server sent until it closed (or until the timeout). */
  text: string;
  /** How the connection ended: 'end' is a normal close, 'reset' an ECONNRESET, 'open' not closed. */
  ending: 'end' | 'reset' | 'open';
}

/** Writes raw bytes on one keep-alive connection and reads until the server closes it (or 5 s pass). */
function exchange(...writes: string[]): Promise<Exchange> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const finish = (ending: Exchange['ending']) => {
      clearTimeout(timer);
      socket.destroy();
      done({ text, ending });
    };
    const timer = setTimeout(() => finish('open'), 5000);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => finish('end'));
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'ECONNRESET' ? 'reset' : 'open'));
    socket.on('connect', () => {
      for (const w of writes) socket.write(w);
    });
  });
}

/** The first response in raw HTTP text: status, lower-cased headers, body. */
function firstResponse(raw: string) {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n').slice(0, length) };
}

describe('a request the HTTP parser cannot read', () => {
  it('headers over 16 KB: 400 invalid_request in the envelope, with X-Request-Id, then a clean close', async () => {
    const { text, ending } = await exchange(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    const res = firstResponse(text);
    expect(res.status).toBe(400);
    expect(res.headers['connection']).toBe('close');
    expect(res.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/16 KB/);
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
    expect(ending).toBe('end');
  });

  it('a URL over 16 KB: the same answer', async () => {
    const { text, ending } = await exchange(`GET /api/v1/orders?filler=${'b'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const res = firstResponse(text);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
    expect(ending).toBe('end');
  });

  it('bytes that are not HTTP: 400 in the envelope', async () => {
    const { text } = await exchange('HELLO THERE\r\n\r\n');
    const res = firstResponse(text);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });
});

describe('a body over 1 MB on a keep-alive connection', () => {
  it('is answered 413 payload_too_large in the envelope with Connection: close, and the connection ends normally, not in a reset', async () => {
    const body = `{"external_id":"big","totals":{"total":1},"note":"${'x'.repeat(1_100_000)}"}`;
    const { text, ending } = await exchange(
      `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    const res = firstResponse(text);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('payload_too_large');
    // The unread rest of the body cannot be told from a next request: the answer says so, and the
    // connection then closes normally (the client sees the whole 413, not a reset).
    expect(res.headers['connection']).toBe('close');
    expect(ending).toBe('end');
  });
});
