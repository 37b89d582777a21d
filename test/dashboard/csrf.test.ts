// Every POST form carries a per-session (or, signed out, per-visitor) token; a missing or wrong one, or a
// post from another origin, is refused with a 403 page and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, newEmail, PageClient, PASSWORD } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const keyCount = async (storeId: string) =>
  (await t.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from api_keys where store_id = ?`, [storeId]))[0]!.n;
const createKeyFields = { kind: 'secret', scopes: ['orders:read'] };

describe('CSRF protection', () => {
  it('a form without a token, with a wrong one or with another session’s is refused with a 403 page; the key is not created', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const storeId = await c.createStore();
    const other = new PageClient(t);
    await other.signUp();
    const othersToken = csrfOf((await other.get('/dashboard')).body)!;
    const url = `/dashboard/stores/${storeId}/keys`;
    for (const token of [undefined, '', 'x'.repeat(43), othersToken]) {
      const res = await c.post(url, token === undefined ? createKeyFields : { ...createKeyFields, _csrf: token });
      expect(res.statusCode, String(token)).toBe(403);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('This form has expired');
    }
    expect(await keyCount(storeId)).toBe(0);
    const ok = await c.post(url, createKeyFields, { from: url });
    expect(ok.statusCode).toBe(200);
    expect(await keyCount(storeId)).toBe(1);
  });

  it('a valid token posted from another origin is refused; our origin, the "null" origin of no-referrer pages, and no header are accepted', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const storeId = await c.createStore();
    const url = `/dashboard/stores/${storeId}/keys`;
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1:3998' },
      { referer: 'https://evil.example/page' },
    ];
    for (const headers of refused)
      expect((await c.post(url, createKeyFields, { from: url, headers })).statusCode, JSON.stringify(headers)).toBe(403);
    expect(await keyCount(storeId)).toBe(0);
    const accepted: Record<string, string>[] = [
      { origin: 'http://127.0.0.1:3999' },
      { origin: 'null' },
      { referer: 'http://127.0.0.1:3999/dashboard' },
      {},
    ];
    for (const headers of accepted) {
      expect((await c.post(url, createKeyFields, { from: url, headers })).statusCode, JSON.stringify(headers)).toBe(200);
    }
  });

  it('the token of a session stops working when the session ends', async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const storeId = await c.createStore();
    const token = csrfOf((await c.get(`/dashboard/stores/${storeId}/keys`)).body)!;
    await c.post('/dashboard/sign-out', { _csrf: token });
    await c.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' });
    expect((await c.post(`/dashboard/stores/${storeId}/keys`, { ...createKeyFields, _csrf: token })).statusCode).toBe(403);
  });

  it('sign-in and sign-up forms are protected too: they need the visitor’s pre-session cookie and its token', async () => {
    const email = await new PageClient(t).signUp();
    const c = new PageClient(t);
    const token = csrfOf((await c.get('/dashboard/sign-in')).body)!;
    expect(c.cookies.get('sc_pre')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stranger = new PageClient(t);
    expect((await stranger.post('/dashboard/sign-in', { email, password: PASSWORD, _csrf: token })).statusCode).toBe(403);
    expect((await stranger.post('/dashboard/sign-up', { email: newEmail(), password: PASSWORD })).statusCode).toBe(403);
    expect(stranger.cookies.has('sc_session')).toBe(false);
    expect((await c.post('/dashboard/sign-in', { email, password: PASSWORD, _csrf: token })).statusCode).toBe(303);
  });

  it('every form on every page carries the token', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const storeId = await c.createStore();
    for (const path of ['', '/keys', '/webhooks', '/connections', '/settings']) {
      const body = (await c.get(`/dashboard/stores/${storeId}${path}`)).body;
      const posts = body.match(/<form[^>]*method="post"[^>]*>/g) ?? [];
      const tokens = body.match(/<form[^>]*method="post"[^>]*><input type="hidden" name="_csrf" value="[^"]+">/g) ?? [];
      expect(posts.length, path).toBeGreaterThan(0);
      expect(tokens.length, path).toBe(posts.length);
    }
  });
});
