import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkCredentials } from '../../services/accounts/owners.js';
import { completePasswordReset } from '../../services/accounts/passwords.js';
import { findOwnedStore } from '../../services/accounts/stores.js';
import { PageClient } from '../dashboard/client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';

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
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('owner add (a store made by the CLI gets a dashboard account)', () => {
  it('creates the account with a password shown once, and links an existing account without one', async () => {
    const s = await createTestStore(t.orm);
    const email = `ops-${Date.now()}@owners.example`;
    const first = await admin('owner', 'add', '--email', email, '--store', s.store.id);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({
      owner: { email },
      store_id: s.store.id,
      dashboard_url: `http://127.0.0.1:3999/dashboard/stores/${s.store.id}`,
    });
    const owner = await checkCredentials(t.orm.em.fork(), email, out.password);
    expect(owner?.id).toBe(out.owner.id);
    expect(await findOwnedStore(t.orm.em.fork(), owner!.id, s.store.id)).not.toBeNull();

    const other = await createTestStore(t.orm);
    const second = JSON.parse((await admin('owner', 'add', '--email', email, '--store', other.store.id)).stdout);
    expect(second.password).toBeUndefined();
    // An existing account gets the store only through the operator's one-time link.
    expect(second.invite_url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/dashboard\/reset-password\/[A-Za-z0-9_-]{43}$/);
    expect(await findOwnedStore(t.orm.em.fork(), owner!.id, other.store.id)).toBeNull();
    const token = new URL(second.invite_url).pathname.split('/').pop()!;
    const done = await completePasswordReset(t.orm.em.fork(), token, 'a brand new passphrase 42');
    expect(done.ok).toBe(true);
    expect(await findOwnedStore(t.orm.em.fork(), owner!.id, other.store.id)).not.toBeNull();
  });

  it('an account someone signed up first with the owner’s email does not get the store (no pre-hijacking)', async () => {
    const s = await createTestStore(t.orm);
    const email = `victim-${Date.now()}@owners.example`;
    // The attacker signs up with the owner's address before the operator adds it, and keeps a session.
    const c = new PageClient(t);
    await c.signUp(email);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    const added = JSON.parse((await admin('owner', 'add', '--email', email, '--store', s.store.id)).stdout);
    // Nothing of the store for the attacker's account or session, before or after.
    const ownerId = added.owner.id as string;
    expect(await findOwnedStore(t.orm.em.fork(), ownerId, s.store.id)).toBeNull();
    expect((await c.get(`/dashboard/stores/${s.store.id}`)).statusCode).toBe(404);
    // The real owner, given the link by the operator, sets a password: the store is theirs, the attacker's session is gone.
    const token = new URL(added.invite_url).pathname.split('/').pop()!;
    expect((await completePasswordReset(t.orm.em.fork(), token, 'the real owner passphrase')).ok).toBe(true);
    expect(await findOwnedStore(t.orm.em.fork(), ownerId, s.store.id)).not.toBeNull();
    expect((await c.get('/dashboard')).statusCode).not.toBe(200);
    expect(await checkCredentials(t.orm.em.fork(), email, 'the real owner passphrase')).not.toBeNull();
  });

  it('refuses a malformed email with the service’s words, exit 1, no stack trace', async () => {
    const s = await createTestStore(t.orm);
    const run = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/admin.ts', 'owner', 'add', '--email', 'nobody-at-all', '--store', s.store.id],
        { cwd: repoRoot, env: { ...process.env, DATABASE_URL: inject('databaseUrl') } },
        (err, _stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stderr }),
      ),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: Enter a valid email address.\n');
  });

  it('refuses an unknown store', async () => {
    const run = await admin('owner', 'add', '--email', 'x@owners.example', '--store', '00000000-0000-4000-8000-000000000000');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
  });
});
