// The owner's password: the change (current + new, field errors, other sessions end) and the operator's
// one-time reset link (`admin owner reset-password`): single use, expiring, sessions ended.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkCredentials } from '../../services/accounts/owners.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { newEmail, PageClient, PASSWORD } from './client.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const admin = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: 'http://127.0.0.1:3999' } },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());
const NEW = 'a brand new passphrase';

describe('password change', () => {
  it('needs the current password, says which field is wrong, and signs out the other browsers', { timeout: 60_000 }, async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const other = new PageClient(t);
    await other.post('/dashboard/sign-in', { email, password: PASSWORD }, { from: '/dashboard/sign-in' });
    expect((await other.get('/dashboard')).statusCode).toBe(200);

    const wrong = await c.post(
      '/dashboard/account/password',
      { current_password: 'not the password', new_password: NEW },
      { from: '/dashboard/account' },
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toMatch(/id="pw-current"[^>]*aria-invalid="true"/);
    expect(wrong.body).toContain('The current password is wrong.');
    const short = await c.post(
      '/dashboard/account/password',
      { current_password: PASSWORD, new_password: 'short' },
      { from: '/dashboard/account' },
    );
    expect(short.statusCode).toBe(400);
    expect(short.body).toMatch(/id="e-new_password"[^>]*>The password needs at least 10 characters/);

    const done = await c.post(
      '/dashboard/account/password',
      { current_password: PASSWORD, new_password: NEW },
      { from: '/dashboard/account' },
    );
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/account?done=changed');
    expect((await c.get('/dashboard/account?done=changed')).body).toContain('Your password is changed');
    expect((await other.get('/dashboard')).statusCode).toBe(303);
    expect(await checkCredentials(t.orm.em.fork(), email, PASSWORD)).toBeNull();
    expect(await checkCredentials(t.orm.em.fork(), email, NEW)).not.toBeNull();
  });
});

describe('password reset by the operator', () => {
  it('prints {url, expires_at}; the link sets a password once, signs in, and ends the old sessions', { timeout: 90_000 }, async () => {
    const c = new PageClient(t);
    const email = await c.signUp(newEmail('reset'));
    const run = await admin('owner', 'reset-password', '--email', email.toUpperCase());
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { url: string; expires_at: string };
    expect(Object.keys(out).sort()).toEqual(['expires_at', 'url']);
    expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/dashboard\/reset-password\/[A-Za-z0-9_-]{43}$/);
    const left = new Date(out.expires_at).getTime() - Date.now();
    expect(left).toBeGreaterThan(50 * 60_000);
    expect(left).toBeLessThanOrEqual(60 * 60_000 + 5_000);

    const path = new URL(out.url).pathname;
    const visitor = new PageClient(t);
    const form = await visitor.get(path);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(email);
    const weak = await visitor.post(path, { new_password: 'short' }, { from: path });
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toContain('at least 10 characters');
    const set = await visitor.post(path, { new_password: NEW }, { from: path });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/dashboard/account?done=reset');
    expect((await visitor.get('/dashboard')).statusCode).toBe(200);
    expect((await c.get('/dashboard')).statusCode).toBe(303);
    expect(await checkCredentials(t.orm.em.fork(), email, NEW)).not.toBeNull();

    // Single use: the same link, again.
    expect((await new PageClient(t).get(path)).statusCode).toBe(410);
    const again = new PageClient(t);
    const token = (await again.get('/dashboard/sign-in')).body;
    expect(token).toContain('_csrf');
    expect((await again.post(path, { new_password: 'another new passphrase' }, { from: '/dashboard/sign-in' })).statusCode).toBe(410);
    expect(await checkCredentials(t.orm.em.fork(), email, NEW)).not.toBeNull();
  });

  it('an expired link and an unknown one do not work; an unknown email is a command error', { timeout: 60_000 }, async () => {
    const email = await new PageClient(t).signUp(newEmail('expired'));
    const out = JSON.parse((await admin('owner', 'reset-password', '--email', email)).stdout) as { url: string };
    await t.orm.em.fork().execute(`update owner_password_resets set expires_at = now() - interval '1 second'`);
    expect((await new PageClient(t).get(new URL(out.url).pathname)).statusCode).toBe(410);
    expect((await new PageClient(t).get('/dashboard/reset-password/' + 'A'.repeat(43))).statusCode).toBe(410);
    const unknown = await admin('owner', 'reset-password', '--email', 'nobody@owners.example');
    expect(unknown.code).toBe(1);
  });
});
