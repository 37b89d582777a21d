import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inject } from 'vitest';
import { revokeKey } from '../../services/stores.js';
import { hashKey } from '../../domain/api-keys.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

const me = (headers: Record<string, string> = {}, query = '') => t.request({ method: 'GET', url: `/api/v1/me${query}`, headers });

describe('a key is sent in Authorization: Bearer or X-Api-Key', () => {
  it('Authorization: Bearer <key> is accepted', async () => {
    expect((await me({ authorization: `Bearer ${s.secret}` })).statusCode).toBe(200);
  });

  it('the Bearer scheme is case-insensitive', async () => {
    expect((await me({ authorization: `bearer ${s.secret}` })).statusCode).toBe(200);
  });

  it('X-Api-Key: <key> is accepted', async () => {
    expect((await me({ 'x-api-key': s.secret })).statusCode).toBe(200);
  });

  it('a publishable key is accepted the same way', async () => {
    expect((await me({ 'x-api-key': s.publishable })).statusCode).toBe(200);
  });
});

describe('a missing, wrong or revoked key gives 401 unauthorized', () => {
  const expect401 = async (headers: Record<string, string>) => {
    const res = await me(headers);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthorized');
    return res;
  };

  it('no key at all', async () => {
    await expect401({});
  });

  it('an empty Bearer value', async () => {
    await expect401({ authorization: 'Bearer ' });
  });

  it('a malformed key', async () => {
    await expect401(bearer('svc_live_sk_not-hex'));
    await expect401(bearer(`${s.secret}00`));
    await expect401(bearer(s.secret.toUpperCase()));
  });

  it('another authorization scheme carrying a valid key', async () => {
    await expect401({ authorization: `Basic ${s.secret}` });
  });

  it('a well-formed key that was never issued', async () => {
    await expect401(bearer(`svc_live_sk_${'0'.repeat(48)}`));
    await expect401(bearer(`svc_live_pk_${'a'.repeat(48)}`));
    await expect401(bearer(`svc_live_${'b'.repeat(40)}`));
  });

  it('a revoked key, from the very next request', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'secret' });
    expect((await me(bearer(k.key))).statusCode).toBe(200);
    await revokeKey(t.orm.em.fork(), k.id);
    await expect401(bearer(k.key));
  });

  it('a revoked key does not affect the store’s other keys', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'secret' });
    await revokeKey(t.orm.em.fork(), k.id);
    expect((await me(bearer(s.secret))).statusCode).toBe(200);
  });
});

describe('a key in the URL is refused', () => {
  for (const name of ['api_key', 'apikey', 'key', 'access_token', 'token']) {
    it(`?${name}=<key> is 400 invalid_request naming the parameter, even with a valid header key`, async () => {
      const res = await me(bearer(s.secret), `?${name}=${s.secret}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: name });
    });
  }

  it('any query value shaped like a key is refused, whatever its name', async () => {
    const res = await me({}, `?q=${s.publishable}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('q');
  });

  it('a key in the path of the URL is refused as well', async () => {
    const res = await t.request({ method: 'GET', url: `/api/v1/orders/${s.secret}`, headers: bearer(s.secret) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.message).toMatch(/header/);
  });

  it('a key in the URL is refused on keyless routes too', async () => {
    const res = await t.request({ method: 'GET', url: `/api/v1/openapi.json?x=${s.secret}` });
    expect(res.statusCode).toBe(400);
  });

  it('the key from the URL never reaches the logs', async () => {
    const k = await addKey(t.orm, s.store.id, { kind: 'secret' });
    await me(bearer(k.key), `?api_key=${k.key}`);
    await me({ 'x-api-key': k.key });
    await new Promise((r) => setTimeout(r, 200));
    const log = readFileSync(resolve(inject('logDir'), 'api.log'), 'utf8');
    expect(log).not.toContain(k.key);
    expect(log).not.toContain(k.key.slice(-40));
  });
});

describe('key formats and storage', () => {
  it('a secret key is svc_live_sk_ plus 48 hex characters', () => {
    expect(s.secret).toMatch(/^svc_live_sk_[0-9a-f]{48}$/);
  });

  it('a publishable key is svc_live_pk_ plus 48 hex characters', () => {
    expect(s.publishable).toMatch(/^svc_live_pk_[0-9a-f]{48}$/);
  });

  it('a legacy key is svc_live_ plus 40 hex characters', async () => {
    expect((await addKey(t.orm, s.store.id, { kind: 'legacy' })).key).toMatch(/^svc_live_[0-9a-f]{40}$/);
  });

  it('a connection key has the secret form', async () => {
    const k = await createTestConnection(t.orm, s.store.id, 'platform_a');
    expect(k.key).toMatch(/^svc_live_sk_[0-9a-f]{48}$/);
  });

  it('only a SHA-256 hash is stored: no column holds the key or its secret part', async () => {
    const keys = await Promise.all((['secret', 'publishable', 'legacy'] as const).map((kind) => addKey(t.orm, s.store.id, { kind })));
    for (const k of keys) {
      const rows = await t.orm.em.fork().execute<Record<string, unknown>[]>('select * from api_keys where id = ?', [k.id]);
      expect(rows).toHaveLength(1);
      const text = JSON.stringify(rows[0]);
      const secretPart = k.key.replace(/^svc_live_(sk_|pk_)?/, '');
      expect(text).not.toContain(k.key);
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain(secretPart.slice(-24));
      expect(rows[0]!.key_hash).toBe(hashKey(k.key));
      expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('the shown prefix reveals the kind and at most 4 hex characters of the secret', async () => {
    for (const kind of ['secret', 'publishable', 'legacy'] as const) {
      const k = await addKey(t.orm, s.store.id, { kind });
      const [row] = await t.orm.em.fork().execute<{ prefix: string }[]>('select prefix from api_keys where id = ?', [k.id]);
      const form = /^svc_live_(sk_|pk_)?/.exec(k.key)![0];
      expect(row!.prefix.replace(/…$/, '')).toBe(k.key.slice(0, form.length + 4));
    }
  });

  it('every generated key is distinct', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => addKey(t.orm, s.store.id, { kind: 'secret' })));
    expect(new Set(keys.map((k) => k.key)).size).toBe(20);
  });
});
