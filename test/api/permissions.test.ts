import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { KeyRequirement } from '../../api/access.js';
import { SCOPES, type Scope } from '../../domain/scopes.js';
import { createKey } from '../../services/stores.js';
import { bearer, createTestApp, randomLoopbackIp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore } from '../helpers/store.js';
import { buildPlumbingApp } from './plumbing-app.js';

// Built at collection time so the matrix below can list which rows of the endpoint table exist yet.
const t = await createTestApp();
const s = await createTestStore(t.orm);
afterAll(() => t.close());

const scopesOf = async (key: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key), remoteAddress: randomLoopbackIp() })).json().key.scopes;

describe('the scopes each kind of key holds', () => {
  it('a new secret key gets orders:read, orders:write, products:read, checkout:write, tracking:read by default', async () => {
    expect(await scopesOf(s.secret)).toEqual(['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read']);
  });

  it('a secret key may be given products:write and webhooks:write, but never connection:manage', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['webhooks:write', 'products:write'] });
    expect(await scopesOf(k.key)).toEqual(['products:write', 'webhooks:write']);
    await expect(addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['connection:manage'] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'scopes',
    });
  });

  it('a publishable key holds products:read, checkout:write and tracking:read by default', async () => {
    expect(await scopesOf(s.publishable)).toEqual(['products:read', 'checkout:write', 'tracking:read']);
  });

  it('a publishable key may hold a subset of those three and nothing else', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'publishable', scopes: ['tracking:read'] });
    expect(await scopesOf(k.key)).toEqual(['tracking:read']);
    for (const scope of SCOPES.filter((x) => !['products:read', 'checkout:write', 'tracking:read'].includes(x))) {
      await expect(addKey(t.orm, s.store.id, { kind: 'publishable', scopes: [scope] }), scope).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'scopes',
      });
    }
  });

  it('a legacy key holds exactly orders:read and webhooks:write and cannot be given more', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'legacy' });
    expect(await scopesOf(k.key)).toEqual(['orders:read', 'webhooks:write']);
    await expect(addKey(t.orm, s.store.id, { kind: 'legacy', scopes: ['orders:write'] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'scopes',
    });
  });

  it('a connection key holds orders:read, orders:write, products:write, tracking:read and connection:manage', async () => {
    const k = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.key), remoteAddress: randomLoopbackIp() });
    expect(res.json().key).toEqual({
      kind: 'secret',
      scopes: ['orders:read', 'orders:write', 'products:write', 'tracking:read', 'connection:manage'],
      connection_id: k.id,
    });
  });

  it('a connection key is stored with the fixed connection scopes whatever was asked', async () => {
    const connection = await createTestConnection(t.orm, s.store.id, 'platform_a');
    const { key } = await createKey(t.orm.em.fork(), s.store.id, {
      kind: 'secret',
      scopes: ['webhooks:write'],
      connectionId: connection.id,
    });
    expect(key.scopes).toEqual(['orders:read', 'orders:write', 'products:write', 'tracking:read', 'connection:manage']);
  });
});

// The callers of the matrix: every kind of key, with and without the permissions a route may need.
type Persona = {
  name: string;
  kind: 'none' | 'secret' | 'publishable' | 'legacy' | 'connection';
  scopes: readonly Scope[];
  key: () => Promise<string | undefined>;
};
const ALL_SECRET: Scope[] = [
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'checkout:write',
  'tracking:read',
  'webhooks:write',
];
const personas: Persona[] = [
  { name: 'no key', kind: 'none', scopes: [], key: async () => undefined },
  {
    name: 'a default secret key',
    kind: 'secret',
    scopes: ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read'],
    key: async () => s.secret,
  },
  {
    name: 'a secret key with every grantable scope',
    kind: 'secret',
    scopes: ALL_SECRET,
    key: lazy(() => addKey(t.orm, s.store.id, { kind: 'secret', scopes: ALL_SECRET })),
  },
  {
    name: 'a secret key with only products:read',
    kind: 'secret',
    scopes: ['products:read'],
    key: lazy(() => addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['products:read'] })),
  },
  {
    name: 'a default publishable key',
    kind: 'publishable',
    scopes: ['products:read', 'checkout:write', 'tracking:read'],
    key: async () => s.publishable,
  },
  {
    name: 'a publishable key with only tracking:read',
    kind: 'publishable',
    scopes: ['tracking:read'],
    key: lazy(() => addKey(t.orm, s.store.id, { kind: 'publishable', scopes: ['tracking:read'] })),
  },
  {
    name: 'a legacy key',
    kind: 'legacy',
    scopes: ['orders:read', 'webhooks:write'],
    key: lazy(() => addKey(t.orm, s.store.id, { kind: 'legacy' })),
  },
  // A fresh one each time: a connection route may end the connection (POST /connect/disconnect).
  {
    name: 'a connection key',
    kind: 'connection',
    scopes: ['orders:read', 'orders:write', 'products:write', 'tracking:read', 'connection:manage'],
    key: async () => (await createTestConnection(t.orm, s.store.id, 'platform_a')).key,
  },
];

function lazy(make: () => Promise<{ key: string }>) {
  let made: Promise<{ key: string }> | undefined;
  return async () => (await (made ??= make())).key;
}

// The spec's endpoint table (store-commerce-api-v1.md, Endpoints), copied as written: the matrix takes its
// expected answers from here, never from api/access.ts (the code under test).
const SPEC_ENDPOINT_TABLE = `
| GET | /me | any | none |
| GET | /orders | secret | orders:read |
| POST | /orders | secret | orders:write |
| POST | /orders/batch | secret | orders:write |
| GET | /orders/{id} | secret | orders:read |
| PATCH | /orders/{id} | secret | orders:write |
| DELETE | /orders/{id} | secret | orders:write |
| POST | /external-products/batch | connection | products:write |
| DELETE | /external-products/{external_id} | connection | products:write |
| GET | /products | secret or publishable | products:read |
| GET | /products/{id} | secret or publishable | products:read |
| GET | /categories | secret or publishable | products:read |
| POST | /checkout/sessions | secret or publishable | checkout:write |
| GET | /tracking | secret or publishable | tracking:read |
| GET | /webhooks | secret | webhooks:write |
| POST | /webhooks | secret | webhooks:write |
| DELETE | /webhooks/{id} | secret | webhooks:write |
| POST | /connect/exchange | none | none |
| POST | /connect/disconnect | connection | connection:manage |
| GET | /connection | connection | connection:manage |
| PUT | /connection | connection | connection:manage |
| GET | /connection/updates | connection | connection:manage |
| POST | /connection/updates/ack | connection | connection:manage |
| GET | /openapi.json | none | none |
`;
type SpecKey = 'any' | 'secret' | 'secret or publishable' | 'connection' | 'none';
interface SpecRow {
  endpoint: string;
  key: SpecKey;
  permission: Scope | null;
}
const SPEC_ROWS: SpecRow[] = SPEC_ENDPOINT_TABLE.trim()
  .split('\n')
  .map((line) => {
    const [method, path, key, permission] = line
      .split('|')
      .slice(1, 5)
      .map((c) => c.trim()) as [string, string, SpecKey, string];
    return { endpoint: `${method} ${path}`, key, permission: permission === 'none' ? null : (permission as Scope) };
  });

/**
 * The spec's Authentication points 2, 4 and 5: a missing key is 401; a publishable key only on routes that
 * say "publishable"; a connection key is a secret key, and routes marked connection take only it; then
 * the permission.
 */
function expected(row: SpecRow, p: Persona): 'allowed' | 401 | 403 {
  if (row.key === 'none') return 'allowed';
  if (p.kind === 'none') return 401;
  const kindOk = {
    any: true,
    secret: p.kind !== 'publishable',
    'secret or publishable': true,
    connection: p.kind === 'connection',
  }[row.key];
  if (!kindOk) return 403;
  return row.permission && !p.scopes.includes(row.permission) ? 403 : 'allowed';
}

const fastifyUrl = (path: string) => `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
const isBuilt = (endpoint: string) => {
  const [method, path] = endpoint.split(' ') as [string, string];
  return t.app.hasRoute({ method: method as 'GET', url: fastifyUrl(path) });
};
/** The spec's routes the app does not serve: the matrix would silently skip them, so each is a failure. */
const missingRoutes = (rows: SpecRow[], built: (endpoint: string) => boolean) =>
  rows.filter((r) => !built(r.endpoint)).map((r) => r.endpoint);
/** Every METHOD /path the app serves under /api/v1 (HEAD and OPTIONS aside), read from Fastify's own route tree. */
function apiRoutes(): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    stack.length = m[1]!.length / 4;
    stack.push(m[2]!);
    const path = stack.join('');
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of m[3]?.split(', ') ?? []) {
      if (method !== 'HEAD' && method !== 'OPTIONS') out.push(`${method} ${path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out;
}
/** The app's /api/v1 routes the spec's table does not list (a route with no rule). */
const unlistedRoutes = (rows: SpecRow[]) => apiRoutes().filter((route) => !rows.some((r) => r.endpoint === route));

/** Sends one request of the matrix and checks the outcome the spec gives. */
async function expectOutcome(app: FastifyInstance, method: string, url: string, p: Persona, want: ReturnType<typeof expected>) {
  const key = await p.key();
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(method);
  const res = await app.inject({
    method: method as 'GET',
    url,
    remoteAddress: randomLoopbackIp(),
    headers: { ...(key ? bearer(key) : {}), ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { payload: '{}' } : {}),
  });
  if (want === 'allowed') {
    expect([401, 403], res.body).not.toContain(res.statusCode);
    expect(res.statusCode, res.body).toBeLessThan(500);
  } else {
    expect(res.statusCode, res.body).toBe(want);
    expect(res.json().error.code).toBe(want === 401 ? 'unauthorized' : 'forbidden');
  }
}
const outcome = (want: ReturnType<typeof expected>) => (want === 'allowed' ? 'gets past authentication and authorization' : String(want));

describe('the permission matrix of the endpoint table: 401 without a valid key, 403 for the wrong kind or a missing permission', () => {
  for (const row of SPEC_ROWS) {
    const [method, path] = row.endpoint.split(' ') as [string, string];
    const url = `/api/v1${path.replace('{id}', randomUUID()).replace('{external_id}', 'ext-1')}`;
    for (const p of personas) {
      const want = expected(row, p);
      it(`${row.endpoint} with ${p.name}: ${outcome(want)}`, () => expectOutcome(t.app, method, url, p, want));
    }
  }

  it('covers every built route of the table', () => {
    expect(SPEC_ROWS).toHaveLength(24);
    expect(missingRoutes(SPEC_ROWS, isBuilt)).toEqual([]);
    expect(unlistedRoutes(SPEC_ROWS)).toEqual([]);
    expect(new Set(apiRoutes())).toEqual(new Set(SPEC_ROWS.map((r) => r.endpoint)));
  });

  it('the coverage check fails when a route of the table is not built, or a built route is not in the table', () => {
    expect(missingRoutes(SPEC_ROWS, (e) => e !== 'GET /categories' && isBuilt(e))).toEqual(['GET /categories']);
    expect(unlistedRoutes(SPEC_ROWS.filter((r) => r.endpoint !== 'PUT /connection'))).toEqual(['PUT /connection']);
  });
});

// Every distinct row requirement of the table, on a stand-in route, so each rule is tested before its routes exist.
// The stand-in routes declare the access our code would (api/access.ts's words for the spec's key column).
const ACCESS_OF: Record<SpecKey, KeyRequirement> = {
  any: 'any',
  secret: 'secret',
  'secret or publishable': 'secret_or_publishable',
  connection: 'connection',
  none: 'none',
};
const requirements = [...new Map(SPEC_ROWS.map((r) => [`${r.key} ${r.permission ?? 'no permission'}`, r])).entries()];
const standIn = await buildPlumbingApp({
  routes(app) {
    requirements.forEach(([, row], i) =>
      app.get(`/api/v1/__access/${i}`, { config: { access: { keys: ACCESS_OF[row.key], permission: row.permission } } }, async () => ({
        ok: true,
      })),
    );
  },
});
afterAll(() => standIn.close());

describe('each key requirement of the table, on a stand-in route', () => {
  requirements.forEach(([name, row], i) => {
    for (const p of personas) {
      const want = expected(row, p);
      it(`${name} with ${p.name}: ${outcome(want)}`, () => expectOutcome(standIn.app, 'GET', `/api/v1/__access/${i}`, p, want));
    }
  });
});

describe('401 comes before 403', () => {
  it('a revoked key on a route it could never use is 401, not 403', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'publishable' });
    await t.orm.em.fork().execute('update api_keys set revoked_at = now() where id = ?', [k.id]);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/orders', headers: bearer(k.key), remoteAddress: randomLoopbackIp() });
    expect(res.statusCode).toBe(401);
  });

  it('a HEAD request follows the rules of its GET route', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/v1/me', remoteAddress: randomLoopbackIp() });
    expect(res.statusCode).toBe(401);
  });
});
