import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { ENDPOINTS } from '../../api/access.js';
import { useHtmlErrors } from '../../web/format.js';
import { FAILING_STATEMENTS, type FailingState } from '../helpers/sql-failures.js';
import { bearer } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { buildPlumbingApp, CLOSED_PORT_DATABASE, CLOSED_PORT_TEMPORAL, type PlumbingApp } from './plumbing-app.js';

const SECRET_DETAIL = 'pg password=hunter2 at db-internal-7:5432';

let t: PlumbingApp;
let s: TestStore;
beforeAll(async () => {
  t = await buildPlumbingApp({
    routes(app) {
      const access = ENDPOINTS['POST /orders'];
      app.post('/api/v1/__echo', { config: { access } }, async (request) => request.body);
      app.withTypeProvider<ZodTypeProvider>().post(
        '/api/v1/__validate',
        {
          config: { access },
          schema: {
            body: z.object({ totals: z.object({ total: z.number() }), items: z.array(z.object({ quantity: z.number() })).optional() }),
          },
        },
        async (request) => request.body,
      );
      app
        .withTypeProvider<ZodTypeProvider>()
        .get(
          '/api/v1/__query',
          { config: { access }, schema: { querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }).strict() } },
          async (request) => request.query,
        );
      app.get('/api/v1/__boom', { config: { access } }, async () => {
        throw new Error(SECRET_DETAIL);
      });
      app.get('/api/v1/__sql', { config: { access } }, async () => app.orm.em.getConnection().execute('select * from no_such_table_xyz'));
      app.get<{ Params: { state: FailingState } }>('/api/v1/__sqlstate/:state', { config: { access } }, async (request) =>
        FAILING_STATEMENTS[request.params.state](app.orm.em.fork()),
      );
      // The pages' error handler (web/errors.ts), as every page plugin installs it.
      void app.register(async (pages) => {
        useHtmlErrors(pages);
        pages.get<{ Params: { state: FailingState } }>('/__page/sqlstate/:state', { config: { unmetered: true } }, async (request) =>
          FAILING_STATEMENTS[request.params.state](app.orm.em.fork()),
        );
      });
    },
  });
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

/** The fixed envelope, with request_id repeating X-Request-Id. */
function expectEnvelope(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ code, message: expect.any(String), request_id: res.headers['x-request-id'] });
  expect(Object.keys(body.error).every((k) => ['code', 'message', 'param', 'request_id'].includes(k))).toBe(true);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(res.headers['cache-control']).toBe('no-store');
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers[h], h).toMatch(/^\d+$/);
  return body.error as { code: string; message: string; param?: string; request_id: string };
}

const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, payload, headers: { ...bearer(s.secret), 'content-type': 'application/json', ...headers } });

describe("Fastify's own failures use the envelope", () => {
  it('a malformed JSON body is 400 invalid_request', async () => {
    expectEnvelope(await post('/api/v1/__echo', '{"external_id": "a",'), 400, 'invalid_request');
  });

  it('an empty body sent as JSON is 400 invalid_request', async () => {
    expectEnvelope(await post('/api/v1/__echo', ''), 400, 'invalid_request');
  });

  it('a JSON body poisoning __proto__ is refused with 400 invalid_request', async () => {
    expectEnvelope(await post('/api/v1/__echo', '{"__proto__": {"admin": true}}'), 400, 'invalid_request');
  });

  it('a body that is not JSON is 400 invalid_request', async () => {
    expectEnvelope(await post('/api/v1/__echo', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request');
  });

  it('a body over 1 MB is 413 payload_too_large', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(1_100_000) });
    expectEnvelope(await post('/api/v1/__echo', big), 413, 'payload_too_large');
  });

  it('a body just under 1 MB is accepted', async () => {
    const res = await post('/api/v1/__echo', JSON.stringify({ note: 'x'.repeat(1_000_000) }));
    expect(res.statusCode).toBe(200);
  });

  it('an unknown route is 404 not_found', async () => {
    expectEnvelope(await t.request({ method: 'GET', url: '/api/v1/no-such-thing', headers: bearer(s.secret) }), 404, 'not_found');
  });

  it('a known path with a method it does not have is 404 not_found (the spec has no 405)', async () => {
    const err = expectEnvelope(await t.request({ method: 'DELETE', url: '/api/v1/me', headers: bearer(s.secret) }), 404, 'not_found');
    expect(err.message).toContain('DELETE');
  });

  it('a malformed URL is 400 invalid_request', async () => {
    expectEnvelope(await t.request({ method: 'GET', url: '/api/v1/orders/%E0%A4%A', headers: bearer(s.secret) }), 400, 'invalid_request');
  });
});

describe('validation errors name the field as a dotted path', () => {
  it('a missing nested field is named totals.total', async () => {
    const err = expectEnvelope(await post('/api/v1/__validate', JSON.stringify({ totals: {} })), 400, 'invalid_request');
    expect(err.param).toBe('totals.total');
  });

  it('a bad field inside an array is named items.3.quantity', async () => {
    const items = [{ quantity: 1 }, { quantity: 1 }, { quantity: 1 }, { quantity: 'three' }];
    const err = expectEnvelope(await post('/api/v1/__validate', JSON.stringify({ totals: { total: 5 }, items })), 400, 'invalid_request');
    expect(err.param).toBe('items.3.quantity');
  });
});

describe('query parameters are validated the same way', () => {
  const get = (query: string) => t.request({ method: 'GET', url: `/api/v1/__query${query}`, headers: bearer(s.secret) });

  it('a bad value names the parameter', async () => {
    expect(expectEnvelope(await get('?limit=0'), 400, 'invalid_request').param).toBe('limit');
  });

  it('an unknown parameter is named in param', async () => {
    expect(expectEnvelope(await get('?limit=5&bogus=1'), 400, 'invalid_request').param).toBe('bogus');
  });
});

describe('an unexpected exception is a 500 that shows nothing internal', () => {
  it('answers internal_error without the exception text, and logs the cause with the request id', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/__boom', headers: bearer(s.secret) });
    const err = expectEnvelope(res, 500, 'internal_error');
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toMatch(/at .*\.ts|Error:|stack/);
    const line = t.logs.find((l) => l.reqId === err.request_id && l.level === 50);
    expect(JSON.stringify(line)).toContain(SECRET_DETAIL);
  });

  it('a failing SQL statement shows neither the SQL nor the database message', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/__sql', headers: bearer(s.secret) });
    const err = expectEnvelope(res, 500, 'internal_error');
    expect(res.body).not.toMatch(/no_such_table_xyz|select|relation/i);
    const line = t.logs.find((l) => l.reqId === err.request_id && l.level === 50);
    expect(JSON.stringify(line)).toContain('no_such_table_xyz');
  });
});

describe('a statement PostgreSQL refuses answers as db/errors.ts maps it, in the API and on the pages, never a 500', () => {
  // The SQLSTATE, the answer, and a word of the cause that the log keeps and the answer never shows.
  const cases: [FailingState, number, string, string | undefined, string][] = [
    ['23505', 409, 'conflict', undefined, 'stores_slug_unique'],
    ['23503', 422, 'unprocessable', undefined, 'api_keys_store_id_fkey'],
    ['22P02', 400, 'invalid_request', undefined, 'not-a-uuid'],
    ['22008', 400, 'invalid_request', undefined, '0000-01-01'],
    ['40001', 503, 'unavailable', '1', 'could not serialize access'],
    ['57014', 503, 'unavailable', '5', 'statement timeout'],
  ];

  it.each(cases)('%s through the API: %s %s, the cause logged with the request id', async (state, status, code, retryAfter, cause) => {
    const res = await t.request({ method: 'GET', url: `/api/v1/__sqlstate/${state}`, headers: bearer(s.secret) });
    const err = expectEnvelope(res, status, code);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.body).not.toContain(cause);
    expect(res.body).not.toMatch(/select|insert|constraint|violates|stores|api_keys|sqlstate/i);
    const line = t.logs.find((l) => l.reqId === err.request_id && l.level === (status >= 500 ? 50 : 40));
    expect(JSON.stringify(line)).toContain(cause);
  });

  it.each(cases)('%s on a page: %s', async (state, status, _code, retryAfter, cause) => {
    const res = await t.request({ method: 'GET', url: `/__page/sqlstate/${state}` });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.body).not.toContain(cause);
    // (The page's stylesheet says `select`: the words of a statement are looked for with what follows them.)
    expect(res.body).not.toMatch(/select \w|insert into|constraint|violates|api_keys|sqlstate/i);
  });
});

describe('a backing service down gives 503 unavailable, never 500', () => {
  let down: PlumbingApp;
  beforeAll(async () => {
    down = await buildPlumbingApp({
      databaseUrl: CLOSED_PORT_DATABASE,
      temporalAddress: CLOSED_PORT_TEMPORAL,
    });
  });
  afterAll(() => down.close());

  it('a request with a well-formed key while PostgreSQL is unreachable is 503', async () => {
    const res = await down.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) });
    expectEnvelope(res, 503, 'unavailable');
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|5432|:1\b/);
  });

  it('a keyless request while PostgreSQL is unreachable is 503', async () => {
    expectEnvelope(await down.request({ method: 'GET', url: '/api/v1/openapi.json' }), 503, 'unavailable');
  });

  it('a call to Temporal while it is unreachable is 503', async () => {
    const app = await buildPlumbingApp({
      temporalAddress: CLOSED_PORT_TEMPORAL,
      routes(a) {
        a.get('/api/v1/__temporal', { config: { access: ENDPOINTS['GET /me'] } }, async () =>
          a.temporal.connection.withDeadline(Date.now() + 1000, () => a.temporal.client.workflow.getHandle('no-such-workflow').describe()),
        );
      },
    });
    try {
      const res = await app.request({ method: 'GET', url: '/api/v1/__temporal', headers: bearer(s.secret) });
      expectEnvelope(res, 503, 'unavailable');
    } finally {
      await app.close();
    }
  });

  it('GET /readyz reports both as unreachable with 503', async () => {
    const res = await down.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ ok: false, database: false, temporal: false });
  });

  it('GET /healthz still answers 200: the process is up', async () => {
    const res = await down.request({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
  });
});
