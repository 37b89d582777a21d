// Bad-input part of the reliability battery (issue 9): at least 10,000 generated and mutated requests
// across every route the app has (API and pages) → zero 5xx, and every API error in the spec's envelope.
// The app runs on a database of its own with no worker: nothing it queues is ever sent anywhere.
// Knobs: FUZZ_SEED replays a run (the seed is printed), FUZZ_REQUESTS sets the generated count,
// FUZZ_VERBOSE prints statuses per route, FUZZ_DEBUG=<route part> prints each request to matching routes.
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { ENDPOINTS } from '../../api/access.js';
import { ERROR_STATUS } from '../../contract/errors.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { approveConnection } from '../../services/connections/codes.js';
import { revokeKey } from '../../services/stores.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';
import { addProducts } from '../catalog/fixtures.js';
import { randomLoopbackIp, testResolver, type TestApp } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { addKey, createTestConnection, createTestStore } from '../helpers/store.js';
import { requestArb } from './generators.js';
import { authHeaders, discoverRoutes, type FuzzContext, type KeyKind, type RequestSpec, type Route } from './model.js';
import { sweepRequests } from './sweep.js';

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const BATCH = 250;
const CONCURRENCY = 12;
const PUBLIC_URL = 'http://127.0.0.1:3999';

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let temporal: TemporalHandle;
let logFile: WriteStream;
let ctx: FuzzContext;
let mainStoreId: string;
let connectionId: string;
let otherSecret: string;
let revoked: string;

const SECRET_SCOPES = ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read', 'webhooks:write'];
const send = (options: InjectOptions) => app.inject({ remoteAddress: randomLoopbackIp(), ...options });
const cookieOf = (res: LightMyRequestResponse, name: string) => {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  return all.map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`) && c.length > name.length + 1);
};
const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** Signs up a dashboard owner through the pages and creates a store there; null when the dashboard is not there. */
async function dashboardSession(): Promise<{ sessionCookie: string; csrf: string; storeId: string } | null> {
  if (!app.hasRoute({ method: 'POST', url: '/dashboard/sign-up' })) return null;
  const ip = randomLoopbackIp();
  const form = await app.inject({ method: 'GET', url: '/dashboard/sign-up', remoteAddress: ip });
  const pre = cookieOf(form, 'sc_pre');
  const signUp = await app.inject({
    method: 'POST',
    url: '/dashboard/sign-up',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(pre ? { cookie: pre } : {}) },
    payload: new URLSearchParams({
      email: `fuzz-${Date.now()}@example.com`,
      password: 'fuzz passphrase 12345',
      next: '/dashboard',
      _csrf: csrfIn(form.body) ?? '',
    }).toString(),
  });
  const sessionCookie = cookieOf(signUp, 'sc_session');
  if (!sessionCookie) return null;
  const home = await app.inject({ method: 'GET', url: '/dashboard/', remoteAddress: ip, headers: { cookie: sessionCookie } });
  const csrf = csrfIn(home.body);
  if (!csrf) return null;
  const created = await app.inject({
    method: 'POST',
    url: '/dashboard/stores',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: sessionCookie },
    payload: new URLSearchParams({ name: 'Fuzz dashboard store', currency: 'USD', _csrf: csrf }).toString(),
  });
  const storeId = /\/dashboard\/stores\/([0-9a-f-]{36})/.exec(String(created.headers.location ?? ''))?.[1];
  return storeId ? { sessionCookie, csrf, storeId } : null;
}

beforeAll(async () => {
  db = await createIsolatedDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A queue no worker polls: should anything be started directly, it waits there and is dropped with the dev server.
    TEMPORAL_TASK_QUEUE: 'fuzz-no-worker',
    ALLOW_LOOPBACK_TARGETS: 'true',
    PUBLIC_URL,
    SECRETS_KEY: inject('secretsKey'),
  }) as ResolvedConfig;
  orm = await openOrm({ databaseUrl: db.url, poolMax: 8 });
  temporal = createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace, taskQueue: config.taskQueue });
  logFile = createWriteStream(join(inject('logDir'), 'api.log'), { flags: 'a' });
  app = await buildApp({ config, orm, temporal, logger: createLogger('warn', logFile), resolve: testResolver });
  await app.ready();
  const t = { orm } as TestApp;

  // The main store, with something of every kind to name.
  const main = await createTestStore(orm, { plan: 'paid', name: `Fuzz main ${Date.now()}` });
  mainStoreId = main.store.id;
  const admin = (await addKey(orm, mainStoreId, { kind: 'secret', scopes: SECRET_SCOPES })).key;
  const other = await createTestStore(orm, { plan: 'paid', name: `Fuzz other ${Date.now()}` });
  otherSecret = other.secret;
  const dead = await addKey(orm, mainStoreId, { kind: 'secret' });
  await revokeKey(orm.em.fork(), dead.id);
  revoked = dead.key;
  const connection = await createTestConnection(orm, mainStoreId, 'platform_a', 'https://shop-fuzz.example');
  connectionId = connection.id;
  const post = (key: string, url: string, payload: unknown, method: 'POST' | 'PATCH' | 'GET' = 'POST') =>
    send({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

  const products = await addProducts(t, mainStoreId, [
    { name: 'Tea', price: 10, stock: 100_000, category: 'Drinks' },
    {
      name: 'Cup',
      price: 4.5,
      category: 'Kitchen',
      variants: [
        { options: { Size: 'M' }, price: 5, stock: 1000 },
        { options: { Size: 'L' }, price: 6, stock: 1000 },
      ],
    },
    { name: 'Gone', price: 1, stock: 0 },
  ]);
  const [otherProduct] = await addProducts(t, other.store.id, [{ name: 'Elsewhere', price: 3 }]);
  const externalIds = Array.from({ length: 30 }, (_, i) => `fz-${i}`);
  const orderIds: string[] = [];
  for (const [i, external_id] of externalIds.slice(0, 6).entries()) {
    const res = await post(main.secret, '/api/v1/orders', {
      external_id,
      number: `F-${i}`,
      totals: { total: 10 + i },
      customer: { name: 'Buyer', phone: '+212612345678', email: 'buyer@example.com' },
    });
    orderIds.push(res.json().order.id);
  }
  const updateIds: string[] = [];
  for (const i of [0, 1, 2]) {
    const res = await post(connection.key, '/api/v1/orders', {
      external_id: `conn-${i}`,
      number: `C-${i}`,
      status: 'wc-processing',
      totals: { total: 5 },
    });
    orderIds.push(res.json().order.id);
    await post(main.secret, `/api/v1/orders/${res.json().order.id}`, { status: 'shipped', tracking: { number: `T${i}` } }, 'PATCH');
  }
  for (const r of await orm.em
    .fork()
    .execute<{ id: string }[]>(`select id from connection_updates where connection_id = ?`, [connectionId]))
    updateIds.push(r.id);
  const otherOrder = (await post(other.secret, '/api/v1/orders', { external_id: 'elsewhere', number: 'F-0', totals: { total: 1 } })).json()
    .order.id;
  const cursor = (await post(main.secret, '/api/v1/orders?limit=1', undefined, 'GET')).json().next_cursor;
  const endpointIds: string[] = [];
  for (const n of [1, 2]) endpointIds.push((await post(admin, '/api/v1/webhooks', { url: `http://127.0.0.1:9/setup-${n}` })).json().id);
  const externalProductIds = ['xp-1', 'xp-2', 'xp 3/ä'];
  await post(connection.key, '/api/v1/external-products/batch', {
    products: externalProductIds.map((external_id) => ({ external_id, name: external_id })),
  });
  const cartTokens: string[] = [];
  for (const item of [
    { product_id: products[0]!.id, quantity: 1 },
    { product_id: products[1]!.id, quantity: 2, variant: { Size: 'M' } },
    { product_id: products[0]!.id, quantity: 3 },
  ]) {
    cartTokens.push((await post(main.secret, '/api/v1/checkout/sessions', { items: [item] })).json().token);
  }
  // Connect codes live in a store of their own, so exchanges do not fill the main store's connection allowance.
  const codeStore = await createTestStore(orm, { plan: 'paid', name: `Fuzz codes ${Date.now()}` });
  const connectCodes: string[] = ['not-a-code'];
  for (let i = 0; i < 3; i++)
    connectCodes.push(
      (
        await approveConnection(orm.em.fork(), {
          storeId: codeStore.store.id,
          platform: 'platform_a',
          siteUrl: 'https://code-shop.example',
          ttlSeconds: 600,
        })
      ).code,
    );
  const dashboard = await dashboardSession();
  if (process.env.FUZZ_DEBUG) console.log(`[fuzz debug] dashboard session: ${JSON.stringify(dashboard)}`);
  const keyIds = (
    await orm.em
      .fork()
      .execute<{ id: string }[]>(`select id from api_keys where store_id in (?, ?) limit 6`, [
        dashboard?.storeId ?? mainStoreId,
        mainStoreId,
      ])
  ).map((r) => r.id);

  ctx = {
    publicUrl: PUBLIC_URL,
    orderIds,
    otherOrderIds: [otherOrder],
    orderNumbers: ['F-0', 'F-1', 'C-0', '#F-2', 'nope'],
    externalIds,
    productIds: products.map((p) => p.id),
    otherProductIds: [otherProduct!.id],
    categories: ['Drinks', 'Kitchen', 'None'],
    endpointIds,
    updateIds,
    externalProductIds: externalProductIds.map(encodeURIComponent),
    slugs: [main.store.slug, other.store.slug, 'no-such-store'],
    cartTokens,
    storeIds: dashboard ? [dashboard.storeId, dashboard.storeId, mainStoreId] : [mainStoreId],
    keyIds,
    connectionIds: [connectionId],
    deliveryIds: [crypto.randomUUID()],
    connectCodes,
    connectedSite: 'https://shop-fuzz.example',
    cursor,
    hookUrl: 'http://127.0.0.1:9/fuzz',
    dashboard: dashboard && { sessionCookie: dashboard.sessionCookie, csrf: dashboard.csrf },
  };
}, 180_000);

afterAll(async () => {
  await app?.close();
  await temporal?.connection.close().catch(() => undefined);
  await orm?.close();
  logFile?.end();
  await db?.drop();
});

/** Every route to fuzz: the app's own, plus methods its API paths do not have (404 in the envelope). */
function routesToFuzz(): Route[] {
  const routes = discoverRoutes(app).filter((r) => !['/healthz', '/readyz'].includes(r.path) || r.method === 'GET');
  const apiPaths = [...new Set(routes.filter((r) => r.api).map((r) => r.path))];
  for (const path of apiPaths) {
    const taken = new Set(routes.filter((r) => r.path === path).map((r) => r.method));
    const missing = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !taken.has(m));
    if (missing) routes.push({ method: missing, path, api: true, access: null, wrongMethod: true });
  }
  return routes;
}

/** A deterministic shuffle (the run is reproducible from FUZZ_SEED). */
function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

interface Outcome {
  spec: RequestSpec;
  status: number;
  problem: string | null;
}

/** What is wrong with one answer: a 5xx, a hang, or (for the JSON API) an error outside the envelope. */
function judge(spec: RequestSpec, res: LightMyRequestResponse): string | null {
  if (res.statusCode >= 500) return `answered ${res.statusCode}: ${res.body.slice(0, 300)}`;
  if (!spec.api || spec.method === 'HEAD' || spec.method === 'OPTIONS') return null;
  const requestId = res.headers['x-request-id'];
  if (!requestId) return 'no X-Request-Id';
  if (res.headers['cache-control'] !== 'no-store') return `Cache-Control ${String(res.headers['cache-control'])}`;
  if (res.statusCode >= 400) {
    if (!String(res.headers['content-type']).startsWith('application/json'))
      return `error with Content-Type ${String(res.headers['content-type'])}`;
    let body: { error?: { code?: string; message?: unknown; request_id?: unknown; param?: unknown } };
    try {
      body = res.json();
    } catch {
      return `error body is not JSON: ${res.body.slice(0, 200)}`;
    }
    const e = body.error;
    if (!e || typeof e.code !== 'string' || !(e.code in ERROR_STATUS)) return `not the envelope: ${res.body.slice(0, 200)}`;
    if (ERROR_STATUS[e.code as keyof typeof ERROR_STATUS] !== res.statusCode) return `code ${e.code} with status ${res.statusCode}`;
    if (typeof e.message !== 'string' || e.message === '') return 'envelope without a message';
    if (e.request_id !== requestId) return 'request_id differs from X-Request-Id';
    if (e.param !== undefined && typeof e.param !== 'string') return 'param is not a string';
    if (res.statusCode === 429 && !/^\d+$/.test(String(res.headers['retry-after']))) return '429 without Retry-After';
  } else if (res.statusCode >= 200 && res.statusCode < 300 && res.body !== '') {
    try {
      res.json();
    } catch {
      return `2xx body is not JSON: ${res.body.slice(0, 200)}`;
    }
  }
  return null;
}

describe('hostile requests never break the service', () => {
  it(
    `${TOTAL} generated and mutated requests across every route: zero 5xx, every API error in the envelope`,
    { timeout: 600_000 },
    async () => {
      const started = Date.now();
      const routes = routesToFuzz();
      // Every route of the endpoint table is among them.
      const apiRoutes = new Set(
        routes
          .filter((r) => r.api && !r.wrongMethod)
          .map((r) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.path.slice(7).replace(/:(\w+)/g, '{$1}')}`),
      );
      expect(Object.keys(ENDPOINTS).filter((e) => !apiRoutes.has(e))).toEqual([]);

      const perRoute = Math.ceil(TOTAL / routes.length);
      const generated = shuffle(
        routes.flatMap((route, i) => fc.sample(requestArb(route, ctx), { numRuns: perRoute, seed: SEED + i })),
        SEED,
      ).slice(0, Math.max(TOTAL, routes.length));
      // Then every field, query parameter and path parameter with each hostile value in turn.
      const swept = sweepRequests(routes, ctx);
      const specs = [...generated, ...shuffle(swept, SEED + 1)];

      const outcomes: Outcome[] = [];
      let disposable = 0;
      for (let b = 0; b < specs.length; b += BATCH) {
        // Fresh keys for each batch: a paid secret key allows 300 a minute, and the point is the handlers, not 429.
        const keys: Record<KeyKind, string | null> = {
          secret: (await addKey(orm, mainStoreId, { kind: 'secret', scopes: SECRET_SCOPES })).key,
          publishable: (await addKey(orm, mainStoreId, { kind: 'publishable', origins: ['https://shop.example'] })).key,
          connection: (await addKey(orm, mainStoreId, { kind: 'secret', connectionId })).key,
          other: otherSecret,
          revoked,
          none: null,
        };
        const batch = specs.slice(b, b + BATCH);
        let next = 0;
        const worker = async () => {
          while (next < batch.length) {
            const spec = batch[next++]!;
            let key = keys[spec.auth.kind];
            // Disconnecting ends a connection: each one that would succeed gets a connection of its own.
            if (spec.route.endsWith('/connect/disconnect') && spec.auth.kind === 'connection') {
              key = (await createTestConnection(orm, mainStoreId, 'platform_a', `https://disposable-${++disposable}.example`)).key;
            }
            const auth = authHeaders(spec.auth.form, key, keys.secret!);
            const url = auth.query ? `${spec.url}${spec.url.includes('?') ? '&' : '?'}${auth.query}` : spec.url;
            let res: LightMyRequestResponse;
            try {
              res = await Promise.race([
                send({
                  method: spec.method as 'GET',
                  url,
                  headers: { ...spec.headers, ...auth.headers },
                  ...(spec.payload !== undefined ? { payload: spec.payload } : {}),
                }),
                new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no answer within 30 s')), 30_000).unref()),
              ]);
            } catch (err) {
              outcomes.push({ spec, status: 0, problem: `request failed: ${(err as Error).message}` });
              continue;
            }
            outcomes.push({ spec, status: res.statusCode, problem: judge(spec, res) });
            if (process.env.FUZZ_DEBUG && spec.route.includes(process.env.FUZZ_DEBUG))
              console.log(
                `[fuzz debug] ${spec.method} ${spec.url.slice(0, 120)} ${spec.auth.kind}/${spec.auth.form} ${spec.bodyNote.slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`,
              );
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      }

      const seconds = (Date.now() - started) / 1000;
      const byStatus = outcomes.reduce<Record<number, number>>((m, o) => ({ ...m, [o.status]: (m[o.status] ?? 0) + 1 }), {});
      const failures = outcomes.filter((o) => o.problem !== null);
      const byRoute = new Map<string, Record<string, number>>();
      for (const o of outcomes) {
        const row = byRoute.get(o.spec.route) ?? {};
        const cls = `${Math.floor(o.status / 100)}xx`;
        row[cls] = (row[cls] ?? 0) + 1;
        byRoute.set(o.spec.route, row);
      }
      const verbose = process.env.FUZZ_VERBOSE || failures.length > 0;
      console.log(
        [
          `[fuzz] ${outcomes.length} requests (${generated.length} generated and mutated, ${swept.length} in the systematic sweep) to ${routes.length} routes in ${seconds.toFixed(1)} s (seed ${SEED}); statuses ${JSON.stringify(byStatus)}; ${failures.length} problems`,
          ...[...byRoute]
            .filter(() => verbose)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([route, counts]) => `[fuzz]   ${route.padEnd(62)} ${JSON.stringify(counts)}`),
        ].join('\n'),
      );
      // One example of each kind of problem per route, then the count.
      const kinds = new Map<string, Outcome[]>();
      for (const f of failures) {
        const kind = `${f.spec.route} ${f.problem!.slice(0, 40)}`;
        kinds.set(kind, [...(kinds.get(kind) ?? []), f]);
      }
      const report = [...kinds.values()]
        .slice(0, 30)
        .map((list) => [list[0]!, list.length] as const)
        .map(
          ([f, n]) =>
            `${n} × ${f.spec.route}\n    ${f.spec.method} ${f.spec.url.slice(0, 200)}\n    auth ${f.spec.auth.kind}/${f.spec.auth.form}; headers ${Object.keys(f.spec.headers).join(',')}; body ${f.spec.bodyNote}\n    → ${f.problem!.slice(0, 300)}`,
        );

      expect(outcomes.length).toBeGreaterThanOrEqual(TOTAL + swept.length);
      expect(failures.length, `${failures.length} problems (seed ${SEED}):\n${report.join('\n')}`).toBe(0);
      // Valid keys reached the handlers: a good share of requests succeeded.
      expect(outcomes.filter((o) => o.status >= 200 && o.status < 400).length).toBeGreaterThan(outcomes.length * 0.1);
    },
  );
});
