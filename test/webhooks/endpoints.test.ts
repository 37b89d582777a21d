// POST/GET /webhooks and DELETE /webhooks/{id}. Endpoints with public (.example) names are registered
// here but no order is ever written in their stores, so nothing is sent to them (not even a DNS query).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { openSecret } from '../../domain/secret-box.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { LOOPBACK_FORMS, REFUSED_BEFORE_DNS } from './targets.js';

let t: TestApp;
/** The same service with ALLOW_LOOPBACK_TARGETS off, as in production. */
let prod: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  prod = await createTestApp({ ALLOW_LOOPBACK_TARGETS: 'false' });
});
afterAll(async () => {
  await t.close();
  await prod.close();
});

/** A store and a secret key that holds webhooks:write. */
async function webhookStore() {
  const s = await createTestStore(t.orm);
  const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'webhooks:write'] });
  return { ...s, admin: key };
}
type Store = Awaited<ReturnType<typeof webhookStore>>;

const post = (s: Store, payload: unknown, app = t) =>
  app.request({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(s.admin), payload: payload as object });
const list = (s: Store) => t.request({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(s.admin) });
const remove = (s: Store, id: string) => t.request({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: bearer(s.admin) });
const errorOf = (res: { statusCode: number; json(): { error: { code: string; param?: string } } }) => [
  res.statusCode,
  res.json().error?.code,
  res.json().error?.param,
];

describe('who may manage webhooks', () => {
  it('a secret key with the default scopes gets 403 (it lacks webhooks:write); a publishable key too; no key 401', async () => {
    const s = await webhookStore();
    for (const key of [s.secret, s.publishable]) {
      for (const [method, url] of [
        ['GET', '/api/v1/webhooks'],
        ['POST', '/api/v1/webhooks'],
        ['DELETE', `/api/v1/webhooks/${crypto.randomUUID()}`],
      ] as const) {
        const res = await t.request({
          method,
          url,
          headers: bearer(key),
          ...(method === 'POST' ? { payload: { url: 'https://hooks.public.example/h' } } : {}),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
      }
    }
    expect((await t.request({ method: 'GET', url: '/api/v1/webhooks' })).statusCode).toBe(401);
  });

  it('a legacy key (orders:read and webhooks:write) may', async () => {
    const s = await createTestStore(t.orm);
    const legacy = await addKey(t.orm, s.store.id, { kind: 'legacy' });
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(legacy.key),
      payload: { url: 'https://hooks.public.example/legacy' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await t.request({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(legacy.key) })).json().data).toHaveLength(1);
  });
});

describe('POST /webhooks: url must be a public https address', () => {
  it.each(REFUSED_BEFORE_DNS.map(([url]) => url))('%s → 400 invalid_request, param url', async (url) => {
    const s = await webhookStore();
    expect(errorOf(await post(s, { url }))).toEqual([400, 'invalid_request', 'url']);
  });

  it.each(LOOPBACK_FORMS.map(([url]) => url).concat(['http://127.0.0.1:4000/h', 'http://localhost:4000/h']))(
    '%s → 400 without ALLOW_LOOPBACK_TARGETS',
    async (url) => {
      const s = await webhookStore();
      expect(errorOf(await post(s, { url }, prod))).toEqual([400, 'invalid_request', 'url']);
    },
  );

  it.each([
    'private.example',
    'loopback.example',
    'metadata.example',
    'mixed.example',
    'mapped.example',
    'cgnat.example',
    'ula.example',
    'nowhere.example',
  ])('https://%s/ (resolves to a non-public address, or not at all) → 400 param url', async (host) => {
    const s = await webhookStore();
    const res = await post(s, { url: `https://${host}/hook` });
    expect(errorOf(res)).toEqual([400, 'invalid_request', 'url']);
    expect(res.json().error.message).toMatch(host);
    // One answer for all of them, never the address a name resolved to (no DNS oracle for internal names).
    expect(res.json().error.message).toMatch(/does not resolve to a public address/);
    expect(res.json().error.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|[0-9a-f]*::/);
  });

  it('a public https URL on another port than 443 → 400 param url, naming the port', async () => {
    const s = await webhookStore();
    const res = await post(s, { url: 'https://hooks.public.example:8443/a' }, prod);
    expect(errorOf(res)).toEqual([400, 'invalid_request', 'url']);
    expect(res.json().error.message).toMatch(/port 443/);
  });

  it('OUTBOUND_EXTRA_PORTS lets the operator allow another port, and only that one', async () => {
    const extra = await createTestApp({ ALLOW_LOOPBACK_TARGETS: 'false', OUTBOUND_EXTRA_PORTS: '8443, 9443' });
    try {
      const s = await webhookStore();
      expect((await post(s, { url: 'https://hooks.public.example:8443/a' }, extra)).statusCode).toBe(201);
      expect(errorOf(await post(s, { url: 'https://hooks.public.example:8444/a' }, extra))).toEqual([400, 'invalid_request', 'url']);
    } finally {
      await extra.close();
    }
    expect(() => loadConfig({ OUTBOUND_EXTRA_PORTS: '443,ssh' })).toThrow(
      /OUTBOUND_EXTRA_PORTS: must be comma-separated port numbers \(not: ssh\)/,
    );
  });

  it('a missing or non-string url → 400 param url', async () => {
    const s = await webhookStore();
    for (const payload of [{}, { url: 42 }, { url: null }, { url: `https://hooks.public.example/${'a'.repeat(2001)}` }]) {
      expect(errorOf(await post(s, payload))).toEqual([400, 'invalid_request', 'url']);
    }
  });

  it('public https names are accepted, over IPv4 or IPv6, in production too', async () => {
    const s = await webhookStore();
    for (const url of ['https://hooks.public.example/a', 'https://v6.public.example/b?x=1']) {
      const res = await post(s, { url }, prod);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().url).toBe(url);
    }
  });
});

describe('POST /webhooks: events', () => {
  it('201 with {id, url, events, secret}; events omitted means ["*"]; the secret starts with whsec_', async () => {
    const s = await webhookStore();
    const res = await post(s, { url: 'https://hooks.public.example/all' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['events', 'id', 'secret', 'url']);
    expect(body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), url: 'https://hooks.public.example/all', events: ['*'] });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('a list of kinds is kept (duplicates once)', async () => {
    const s = await webhookStore();
    const res = await post(s, { url: 'https://hooks.public.example/some', events: ['order.paid', 'order.shipped', 'order.paid'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().events).toEqual(['order.paid', 'order.shipped']);
  });

  it('an unknown kind → 400 param events.<index>; "*" with others, or an empty list → 400 param events', async () => {
    const s = await webhookStore();
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/x', events: ['order.exploded'] }))).toEqual([
      400,
      'invalid_request',
      'events.0',
    ]);
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/x', events: ['order.paid', 'order.*'] }))).toEqual([
      400,
      'invalid_request',
      'events.1',
    ]);
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/x', events: ['*', 'order.created'] }))).toEqual([
      400,
      'invalid_request',
      'events',
    ]);
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/x', events: [] }))).toEqual([400, 'invalid_request', 'events']);
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/x', events: 'order.paid' }))).toEqual([
      400,
      'invalid_request',
      'events',
    ]);
    expect((await list(s)).json().data).toEqual([]);
  });
});

describe('POST /webhooks: 409 conflict', () => {
  it('the same URL twice (after normalisation) is a conflict; once deleted, it may be registered again', async () => {
    const s = await webhookStore();
    const first = await post(s, { url: 'https://hooks.public.example/same' });
    expect(first.statusCode).toBe(201);
    expect(errorOf(await post(s, { url: 'https://hooks.public.example/same', events: ['order.paid'] }))).toEqual([409, 'conflict', 'url']);
    expect((await post(s, { url: 'https://HOOKS.public.example:443/same' })).statusCode).toBe(409);
    // Another store may register the same URL.
    expect((await post(await webhookStore(), { url: 'https://hooks.public.example/same' })).statusCode).toBe(201);
    expect((await remove(s, first.json().id)).statusCode).toBe(200);
    expect((await post(s, { url: 'https://hooks.public.example/same' })).statusCode).toBe(201);
  });

  it('an 11th endpoint is a conflict; deleting one makes room', async () => {
    const s = await webhookStore();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await post(s, { url: `https://hooks.public.example/n${i}` });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    const eleventh = await post(s, { url: 'https://hooks.public.example/n10' });
    expect(errorOf(eleventh).slice(0, 2)).toEqual([409, 'conflict']);
    expect(eleventh.json().error.message).toMatch(/10/);
    await remove(s, ids[0]!);
    expect((await post(s, { url: 'https://hooks.public.example/n10' })).statusCode).toBe(201);
  });

  it('concurrent creations cannot pass the limit', async () => {
    const s = await webhookStore();
    const results = await Promise.all(Array.from({ length: 14 }, (_, i) => post(s, { url: `https://hooks.public.example/race${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(4);
  });
});

describe('the secret', () => {
  it('is stored encrypted with SECRETS_KEY, and opens to the secret shown at creation', async () => {
    const s = await webhookStore();
    const { id, secret } = (await post(s, { url: 'https://hooks.public.example/sealed' })).json();
    const [row] = await t.orm.em
      .fork()
      .execute<{ secret_sealed: string }[]>(`select secret_sealed from webhook_endpoints where id = ?`, [id]);
    expect(row!.secret_sealed).not.toBe(secret);
    expect(row!.secret_sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(row!.secret_sealed).not.toContain('whsec_');
    expect(openSecret(t.config.secretsKey, row!.secret_sealed)).toBe(secret);
  });
});

describe('GET /webhooks', () => {
  it('lists id, url, events, active, created_at, newest first, never a secret, only this store and not deleted ones', async () => {
    const s = await webhookStore();
    const other = await webhookStore();
    await post(other, { url: 'https://hooks.public.example/other' });
    const a = (await post(s, { url: 'https://hooks.public.example/a', events: ['order.created'] })).json();
    const b = (await post(s, { url: 'https://hooks.public.example/b' })).json();
    const gone = (await post(s, { url: 'https://hooks.public.example/gone' })).json();
    await remove(s, gone.id);
    const res = await list(s);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toMatch(/whsec_|secret/);
    const { data } = res.json();
    expect(data.map((e: { id: string }) => e.id)).toEqual([b.id, a.id]);
    expect(data[1]).toEqual({
      id: a.id,
      url: 'https://hooks.public.example/a',
      events: ['order.created'],
      active: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
  });
});

describe('DELETE /webhooks/{id}', () => {
  it("answers {id, deleted: true}; again, unknown, malformed or another store's id → 404", async () => {
    const s = await webhookStore();
    const other = await webhookStore();
    const mine = (await post(s, { url: 'https://hooks.public.example/del' })).json();
    const theirs = (await post(other, { url: 'https://hooks.public.example/del' })).json();
    const res = await remove(s, mine.id);
    expect([res.statusCode, res.json()]).toEqual([200, { id: mine.id, deleted: true }]);
    for (const id of [mine.id, theirs.id, crypto.randomUUID(), 'not-a-uuid', '-'.repeat(36), 'ffffffff-ffff-ffff-ffff-fffffffffffff']) {
      expect(errorOf(await remove(s, id)).slice(0, 2), id).toEqual([404, 'not_found']);
    }
    expect((await list(other)).json().data.map((e: { id: string }) => e.id)).toEqual([theirs.id]);
  });
});
