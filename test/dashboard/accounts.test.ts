// Owner accounts: sign up, sign in, sign out, the session cookie, session expiry and the sign-in throttle.
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_HASHING, passwordHashing } from '../../services/accounts/hashing.js';
import { createTestApp, randomLoopbackIp, type TestApp } from '../helpers/app.js';
import { csrfOf, newEmail, PageClient, PASSWORD } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const db = () => t.orm.em.fork();
const sessionsOf = async (email: string) =>
  db().execute<{ id: string }[]>(`select s.id from owner_sessions s join owners o on o.id = s.owner_id where o.email = ?`, [email]);

describe('sign up, sign in, sign out', () => {
  it('an account is created with a scrypt hash of the password, never the password itself, and the email in lower case', async () => {
    const c = new PageClient(t);
    const email = await c.signUp(newEmail('Mixed').replace('mixed', 'MiXeD'));
    const [row] = await db().execute<{ email: string; password_hash: string }[]>(
      `select email, password_hash from owners where email = ?`,
      [email.toLowerCase()],
    );
    expect(row!.email).toBe(email.toLowerCase());
    expect(row!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row!.password_hash).not.toContain(PASSWORD);
  });

  it('refuses a short password, a bad email and a taken email with a message', async () => {
    const c = new PageClient(t);
    const short = await c.post('/dashboard/sign-up', { email: newEmail(), password: 'short' }, { from: '/dashboard/sign-up' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('at least 10 characters');
    const bad = await c.post('/dashboard/sign-up', { email: 'not-an-email', password: PASSWORD }, { from: '/dashboard/sign-up' });
    expect(bad.body).toContain('valid email');
    const email = await new PageClient(t).signUp();
    const taken = await c.post('/dashboard/sign-up', { email: email.toUpperCase(), password: PASSWORD }, { from: '/dashboard/sign-up' });
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toContain('already exists');
  });

  it('signs in with the right password only, returns to a local next page, and never to another site', async () => {
    const email = await new PageClient(t).signUp();
    const c = new PageClient(t);
    const wrong = await c.post('/dashboard/sign-in', { email, password: 'wrong password!' }, { from: '/dashboard/sign-in' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('The email or the password is wrong.');
    const ok = await c.post(
      '/dashboard/sign-in',
      { email: ` ${email.toUpperCase()} `, password: PASSWORD, next: '/dashboard/stores' },
      { from: '/dashboard/sign-in' },
    );
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/dashboard/stores');
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/api/v1/me', 'javascript:alert(1)']) {
      const again = new PageClient(t);
      const res = await again.post('/dashboard/sign-in', { email, password: PASSWORD, next }, { from: '/dashboard/sign-in' });
      expect(res.headers.location, next).toBe('/dashboard');
    }
  });

  it('odd input is refused with a page, never a failure: a repeated next, a NUL character', async () => {
    const c = new PageClient(t);
    expect((await c.get('/dashboard/sign-in?next=/dashboard/x&next=https://evil.example')).statusCode).toBe(200);
    const nul = await c.post('/dashboard/sign-in', { email: 'a\u0000b@example.com', password: PASSWORD }, { from: '/dashboard/sign-in' });
    expect(nul.statusCode).toBe(400);
    expect(nul.body).toContain('NUL');
    expect((await c.get('/dashboard/sign-up?next=%00')).statusCode).toBe(400);
  });

  it('sets the session in a signed HttpOnly SameSite=Lax cookie for the whole site (Secure only over https)', async () => {
    const c = new PageClient(t);
    await c.get('/dashboard/sign-up');
    const res = await c.post('/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, { from: '/dashboard/sign-up' });
    const cookie = [res.headers['set-cookie']].flat().find((v) => v!.startsWith('sc_session='))!;
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(cookie).not.toContain('Secure');
    expect(decodeURIComponent(cookie.split(';')[0]!.split('=')[1]!)).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
  });

  it('over https the cookie is __Host- prefixed and Secure', async () => {
    const https = await createTestApp({ PUBLIC_URL: 'https://dashboard.example' });
    try {
      const c = new PageClient(https);
      const res = await c.post('/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, { from: '/dashboard/sign-up' });
      expect(res.statusCode).toBe(303);
      expect(
        [res.headers['set-cookie']].flat().some((v) => /^__Host-sc_session=.*; Path=\/; HttpOnly; SameSite=Lax; Secure/.test(v!)),
      ).toBe(true);
    } finally {
      await https.close();
    }
  });

  it("over https the anonymous visitor's pre-session cookie is __Host- prefixed and Secure too, and binds the form", async () => {
    const https = await createTestApp({ PUBLIC_URL: 'https://dashboard.example' });
    try {
      const c = new PageClient(https);
      const form = await c.get('/dashboard/sign-up');
      const pre = [form.headers['set-cookie']].flat().find((v) => v!.startsWith('__Host-sc_pre='));
      expect(pre).toMatch(/^__Host-sc_pre=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
      expect([form.headers['set-cookie']].flat().some((v) => v!.startsWith('sc_pre='))).toBe(false);
      const res = await c.post('/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, { from: '/dashboard/sign-up' });
      expect(res.statusCode).toBe(303);
    } finally {
      await https.close();
    }
  });

  it('signing out ends the session on the server: the same cookie no longer works', async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const kept = new Map(c.cookies);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    const out = await c.post('/dashboard/sign-out', {}, { from: '/dashboard' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/sign-in');
    expect(await sessionsOf(email)).toHaveLength(0);
    const replay = new PageClient(t);
    for (const [k, v] of kept) replay.cookies.set(k, v);
    const res = await replay.get('/dashboard');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard');
  });

  it('a cookie with an altered token or signature is refused without a lookup', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const [token, mac] = c.cookies.get('sc_session')!.split('.');
    for (const forged of [`${token}x.${mac}`, `${token}.${mac!.slice(1)}A`, token!, 'garbage']) {
      c.cookies.set('sc_session', forged);
      expect((await c.get('/dashboard')).statusCode, forged).toBe(303);
    }
  });
});

describe('session expiry', () => {
  it('a session past its absolute end sends the owner to sign in, back to the same page afterwards', async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const storeId = await c.createStore();
    await db().execute(
      `update owner_sessions set expires_at = now() - interval '1 second' where owner_id = (select id from owners where email = ?)`,
      [email],
    );
    const res = await c.get(`/dashboard/stores/${storeId}/orders?status=shipped`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/stores/${storeId}/orders?status=shipped`)}`,
    );
    expect([res.headers['set-cookie']].flat().some((v) => /^sc_session=; .*Max-Age=0/.test(v ?? ''))).toBe(true);
    const again = await c.post(
      '/dashboard/sign-in',
      { email, password: PASSWORD, next: `/dashboard/stores/${storeId}/orders?status=shipped` },
      { from: '/dashboard/sign-in' },
    );
    expect(again.headers.location).toBe(`/dashboard/stores/${storeId}/orders?status=shipped`);
    expect((await c.get(again.headers.location as string)).statusCode).toBe(200);
  });

  it('a session idle for more than 12 hours has ended; a recently used one is kept alive', async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const owner = `(select id from owners where email = '${email}')`;
    await db().execute(`update owner_sessions set last_seen_at = now() - interval '11 hours' where owner_id = ${owner}`);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    const [seen] = await db().execute<{ fresh: boolean }[]>(
      `select last_seen_at > now() - interval '1 minute' as fresh from owner_sessions where owner_id = ${owner}`,
    );
    expect(seen!.fresh).toBe(true);
    await db().execute(`update owner_sessions set last_seen_at = now() - interval '12 hours 1 minute' where owner_id = ${owner}`);
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });
});

describe('password hashing (issue 16, security review)', () => {
  it('hashes with scrypt N=2^17, r=8, p=1, and a hash of older parameters still verifies and is renewed on sign-in', async () => {
    const email = await new PageClient(t).signUp();
    const [fresh] = await db().execute<{ password_hash: string }[]>(`select password_hash from owners where email = ?`, [email]);
    expect(fresh!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    // An account hashed before (N=2^15): the same format, older parameters.
    const salt = randomBytes(16);
    const key = scryptSync(PASSWORD.normalize('NFKC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const legacy = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await db().execute(`update owners set password_hash = ? where email = ?`, [legacy, email]);
    expect(
      (await new PageClient(t).post('/dashboard/sign-in', { email, password: 'wrong password!' }, { from: '/dashboard/sign-in' }))
        .statusCode,
    ).toBe(401);
    const [still] = await db().execute<{ password_hash: string }[]>(`select password_hash from owners where email = ?`, [email]);
    expect(still!.password_hash).toBe(legacy);
    expect(
      (await new PageClient(t).post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' })).statusCode,
    ).toBe(303);
    const [renewed] = await db().execute<{ password_hash: string }[]>(`select password_hash from owners where email = ?`, [email]);
    expect(renewed!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(
      (await new PageClient(t).post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' })).statusCode,
    ).toBe(303);
  });
});

describe('the sign-in throttle', () => {
  const wrong = (c: PageClient, email: string, csrf?: string) =>
    c.post(
      '/dashboard/sign-in',
      { email, password: 'wrong password!', ...(csrf ? { _csrf: csrf } : {}) },
      csrf ? {} : { from: '/dashboard/sign-in' },
    );
  const statuses = (list: { statusCode: number }[]) =>
    list.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});
  /** A client with its form token fetched once, to fire many posts at the same moment. */
  async function ready(ip?: string) {
    const c = new PageClient(t, ip);
    const csrf = csrfOf((await c.get('/dashboard/sign-in')).body)!;
    return { c, csrf };
  }

  it('after 5 failures for one email from one client, that client is refused for it (even the right password) for 15 minutes', async () => {
    const email = await new PageClient(t).signUp();
    const attacker = new PageClient(t);
    for (let i = 0; i < 5; i++) expect((await wrong(attacker, email)).statusCode).toBe(401);
    const blocked = await attacker.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    expect(blocked.body).toContain('Too many failed sign-ins');
    expect(blocked.body).toContain('15 minute(s)');
    // The window is over (shortened in the database): the right password works again and clears the count.
    const pair = `email:${email} ip:${attacker.ip}`;
    await db().execute(`update sign_in_throttle set window_started_at = now() - interval '16 minutes' where bucket = ?`, [pair]);
    expect((await attacker.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' })).statusCode).toBe(303);
    expect(await db().execute(`select 1 from sign_in_throttle where bucket = ?`, [pair])).toHaveLength(0);
  });

  it('an owner still signs in with the right password from another address while someone hammers their email', async () => {
    const email = await new PageClient(t).signUp();
    const { c: attacker, csrf } = await ready();
    const burst = await Promise.all(Array.from({ length: 15 }, () => wrong(attacker, email, csrf)));
    expect(statuses(burst)).toEqual({ 401: 5, 429: 10 });
    const owner = new PageClient(t);
    expect((await owner.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' })).statusCode).toBe(303);
    // Still hammered while the owner is in: the attacker stays refused.
    expect((await wrong(attacker, email)).statusCode).toBe(429);
  });

  it('30 concurrent wrong sign-ins from one client are cut at its limit of 20 exactly', async () => {
    const { c, csrf } = await ready();
    // The throttle, not the hashing gate, is under test: room for all 20 in the gate's queue for once
    // (test/security/password-hashing.test.ts tests the gate).
    passwordHashing.waiting = 30;
    try {
      const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => wrong(c, `burst-${i}-${newEmail()}`, csrf)));
      expect(statuses(burst)).toEqual({ 401: 20, 429: 10 });
    } finally {
      passwordHashing.waiting = PASSWORD_HASHING.waiting;
    }
  });

  it('an IPv6 client counts per /64: its 20 failures refuse the whole /64, not the next one', async () => {
    const email = await new PageClient(t).signUp();
    const prefix = `2001:db8:${(process.pid % 0xfff).toString(16)}:77`;
    // 19 failures of the /64 already counted (each real one costs a scrypt hash), then the 20th from another address in it.
    await db().execute(`insert into sign_in_throttle (bucket, failures, window_started_at) values (?, 19, now())`, [`ip:${prefix}::/64`]);
    expect((await wrong(new PageClient(t, `${prefix}::1`), `v6-${newEmail()}`)).statusCode).toBe(401);
    const sameNet = await new PageClient(t, `${prefix}:ffff:ffff:ffff:ffff`).post(
      '/dashboard/sign-in',
      { email, password: PASSWORD },
      { from: '/dashboard/sign-in' },
    );
    expect(sameNet.statusCode).toBe(429);
    const nextNet = await new PageClient(t, `2001:db8:${(process.pid % 0xfff).toString(16)}:78::1`).post(
      '/dashboard/sign-in',
      { email, password: PASSWORD },
      { from: '/dashboard/sign-in' },
    );
    expect(nextNet.statusCode).toBe(303);
  });

  it('after 20 failures from one IP, that IP is refused for every account while others still sign in', async () => {
    const email = await new PageClient(t).signUp();
    const noisy = new PageClient(t);
    for (let i = 0; i < 20; i++) {
      const res = await noisy.post(
        '/dashboard/sign-in',
        { email: `nobody-${i}@example.com`, password: 'wrong password' },
        { from: '/dashboard/sign-in' },
      );
      expect(res.statusCode).toBe(401);
    }
    const refused = await noisy.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' });
    expect(refused.statusCode).toBe(429);
    expect(
      (await new PageClient(t).post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' })).statusCode,
    ).toBe(303);
  });

  it('the counts live in PostgreSQL, so a second API process sees them', async () => {
    const email = await new PageClient(t).signUp();
    const ip = randomLoopbackIp();
    for (let i = 0; i < 5; i++)
      await new PageClient(t, ip).post('/dashboard/sign-in', { email, password: 'wrong password' }, { from: '/dashboard/sign-in' });
    const other = await createTestApp();
    try {
      const res = await new PageClient(other, ip).post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' });
      expect(res.statusCode).toBe(429);
    } finally {
      await other.close();
    }
  });
});

describe('the sign-up throttle', () => {
  const bucketOf = (c: PageClient) => `signup-ip:${c.ip}`;
  const seed = (c: PageClient, count: number) =>
    db().execute(`insert into sign_in_throttle (bucket, failures, window_started_at) values (?, ?, now())`, [bucketOf(c), count]);
  const signUp = (c: PageClient, csrf: string, email = newEmail()) =>
    c.post('/dashboard/sign-up', { email, password: PASSWORD, _csrf: csrf });

  it('a burst of sign-ups from one client is cut at its limit of 30 exactly (counted before the account is made)', async () => {
    const c = new PageClient(t);
    const csrf = csrfOf((await c.get('/dashboard/sign-up')).body)!;
    // 25 already made this window (each real one costs a scrypt hash), then 10 at the same moment.
    await seed(c, 25);
    const burst = await Promise.all(Array.from({ length: 10 }, () => signUp(c, csrf)));
    const counts = burst.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 303: 5, 429: 5 });
    const refused = burst.find((r) => r.statusCode === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(refused.body).toContain('Too many accounts were created from your network');
  });

  it('a sign-up refused for its form gives its count back', async () => {
    const c = new PageClient(t);
    const csrf = csrfOf((await c.get('/dashboard/sign-up')).body)!;
    await seed(c, 29);
    expect((await c.post('/dashboard/sign-up', { email: 'not-an-email', password: PASSWORD, _csrf: csrf })).statusCode).toBe(400);
    expect((await signUp(c, csrf)).statusCode).toBe(303);
    const next = new PageClient(t, c.ip);
    const nextCsrf = csrfOf((await next.get('/dashboard/sign-up')).body)!;
    expect((await signUp(next, nextCsrf)).statusCode).toBe(429);
  });
});
