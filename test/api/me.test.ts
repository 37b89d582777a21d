import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { name: 'Me Shop', currency: 'MAD' });
});
afterAll(() => t.close());

describe('GET /me', () => {
  it('returns api_version v1, the store, the key and the per-minute limit', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      api_version: 'v1',
      store: {
        id: s.store.id,
        name: 'Me Shop',
        slug: s.store.slug,
        url: `http://127.0.0.1:3999/s/${s.store.slug}`,
        tracking_url: `http://127.0.0.1:3999/s/${s.store.slug}/track`,
        currency: 'MAD',
        mode: 'full',
      },
      key: {
        kind: 'secret',
        scopes: ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read'],
        connection_id: null,
      },
      limits: { requests_per_minute: 60 },
    });
  });

  it('answers a publishable key with its own kind, scopes and limit', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.publishable) });
    expect(res.json().key).toEqual({
      kind: 'publishable',
      scopes: ['products:read', 'checkout:write', 'tracking:read'],
      connection_id: null,
    });
    expect(res.json().limits.requests_per_minute).toBe(600);
  });

  it('reports a legacy key as a secret key holding orders:read and webhooks:write', async () => {
    const legacy = await addKey(t.orm, s.store.id, { kind: 'legacy' });
    const res = await t.request({ method: 'GET', url: '/api/v1/me', headers: { 'x-api-key': legacy.key } });
    expect(res.statusCode).toBe(200);
    expect(res.json().key).toEqual({ kind: 'secret', scopes: ['orders:read', 'webhooks:write'], connection_id: null });
  });

  it('records when a key was last used, to the minute', async () => {
    const key = await addKey(t.orm, s.store.id, { kind: 'secret' });
    const before = await t.orm.em
      .fork()
      .execute<{ last_used_at: Date | null }[]>(`select last_used_at from api_keys where id = ?`, [key.id]);
    expect(before[0]!.last_used_at).toBeNull();
    await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
    const after = await t.orm.em
      .fork()
      .execute<{ last_used_at: Date | null }[]>(`select last_used_at from api_keys where id = ?`, [key.id]);
    expect(Date.now() - new Date(after[0]!.last_used_at!).getTime()).toBeLessThan(60_000);
  });
});
