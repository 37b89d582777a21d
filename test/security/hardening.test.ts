// Small hardening items of the security review (issue 16): log redaction of tracking page ids, the docs
// page's security headers, the database connections' client encoding, the Temporal UI bound to loopback.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import { PAGE_HEADERS } from '../../web/html.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let latin1: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // A client default of another encoding (node-pg reads PGCLIENT_ENCODING; a server default would do the same) must not win.
  const before = process.env.PGCLIENT_ENCODING;
  process.env.PGCLIENT_ENCODING = 'LATIN1';
  try {
    latin1 = await createTestApp();
    await latin1.orm.em.fork().execute('select 1');
  } finally {
    if (before === undefined) delete process.env.PGCLIENT_ENCODING;
    else process.env.PGCLIENT_ENCODING = before;
  }
});
afterAll(async () => {
  await t.close();
  await latin1.close();
});

describe('logs', () => {
  it('an order tracking page id never reaches a log line', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const id = randomUUID();
    createLogger('info', out).info({ req: { method: 'POST', url: `/track/${id}?x=1`, id: 'req_1' } }, 'incoming request');
    await new Promise((r) => setImmediate(r));
    const line = lines.join('');
    expect(line).toContain('/track/[redacted]');
    expect(line).not.toContain(id);
  });
});

describe('the docs page', () => {
  it('carries the pages security headers', async () => {
    const res = await t.request({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    // Its own CSP (Redoc's inline scripts by hash; test/api/openapi.test.ts checks it), the other headers as every page.
    for (const [name, value] of Object.entries(PAGE_HEADERS)) if (name !== 'content-security-policy') expect(res.headers[name]).toBe(value);
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src ('sha256-[A-Za-z0-9+/=]+' ?){2};/);
  });
});

describe('database connections', () => {
  // The pg driver also sends UTF8 in its startup packet; this guards the requirement should that change.
  it('pin client_encoding to UTF8 whatever the environment default', async () => {
    const [row] = await latin1.orm.em.fork().execute<{ client_encoding: string }[]>('show client_encoding');
    expect(row!.client_encoding).toBe('UTF8');
    const [text] = await latin1.orm.em.fork().execute<{ t: string }[]>(`select ?::text as t`, ['Zoë 東京 ✓']);
    expect(text!.t).toBe('Zoë 東京 ✓');
  });
});

describe('docker-compose.yml', () => {
  it('publishes the Temporal UI (no sign-in) on 127.0.0.1 only', () => {
    const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
    expect(compose).toContain('"127.0.0.1:8233:8233"');
    expect(compose).not.toMatch(/-\s*"8233:8233"/);
  });
});
