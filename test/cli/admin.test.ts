import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../dev/db/embedded.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const PUBLIC_URL = 'http://127.0.0.1:3999';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as `npm run admin` would, against the run's database. */
const admin = (...args: string[]) => adminOn(inject('databaseUrl'), args);

function adminOn(databaseUrl: string, args: string[]): Promise<Run> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, PUBLIC_URL };
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: repoRoot, env }, (err, stdout, stderr) => {
      done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs a --json command that must succeed; its whole stdout is one JSON document. */
async function adminJson(...args: string[]) {
  const run = await admin(...args, '--json');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

const me = (key: string) => t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('store create', () => {
  it('with --json prints exactly one JSON document: a published free full store and its two keys', async () => {
    const out = await adminJson('store', 'create', '--name', 'Cli Shop');
    expect(Object.keys(out)).toEqual(['store', 'keys']);
    const slug = out.store.slug;
    expect(out.store).toEqual({
      id: expect.any(String),
      name: 'Cli Shop',
      slug: expect.stringMatching(/^cli-shop/),
      url: `${PUBLIC_URL}/s/${slug}`,
      tracking_url: `${PUBLIC_URL}/s/${slug}/track`,
      currency: 'USD',
      mode: 'full',
      plan: 'free',
    });
    expect(out.keys).toEqual({
      secret: expect.stringMatching(/^svc_live_sk_[0-9a-f]{48}$/),
      publishable: expect.stringMatching(/^svc_live_pk_[0-9a-f]{48}$/),
    });
  });

  it('the printed secret key works against the API at once, with the default scopes; the publishable key too', async () => {
    const out = await adminJson('store', 'create', '--name', 'Cli Keys');
    const secret = await me(out.keys.secret);
    expect(secret.statusCode).toBe(200);
    expect(secret.json().store.id).toBe(out.store.id);
    expect(secret.json().key).toEqual({
      kind: 'secret',
      scopes: ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read'],
      connection_id: null,
    });
    const publishable = await me(out.keys.publishable);
    expect(publishable.json().key.kind).toBe('publishable');
  });

  it('on a fresh database it changes nothing and names `admin migrate`; after `migrate` it works, stdout only the JSON document', async () => {
    const fresh = new URL(inject('databaseUrl'));
    fresh.pathname += '_cli_fresh';
    await ensureDatabase(fresh.toString());
    const client = new pg.Client({ connectionString: fresh.toString() });
    await client.connect();
    try {
      const refused = await adminOn(fresh.toString(), ['store', 'create', '--name', 'Fresh Shop', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /^error: the database schema is \d+ migration\(s\) behind this version: run `npm run --silent admin -- migrate`/,
      );
      const tables = await client.query(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
      expect(tables.rows[0].n).toBe(0);

      const migrated = await adminOn(fresh.toString(), ['migrate', '--json']);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(JSON.parse(migrated.stdout).applied.length).toBeGreaterThan(10);
      const again = await adminOn(fresh.toString(), ['migrate', '--json']);
      expect(JSON.parse(again.stdout)).toEqual({ applied: [] });

      const run = await adminOn(fresh.toString(), ['store', 'create', '--name', 'Fresh Shop', '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).store.name).toBe('Fresh Shop');
    } finally {
      await client.end();
      const server = new URL(fresh);
      server.pathname = '/postgres';
      const admin = new pg.Client({ connectionString: server.toString() });
      await admin.connect();
      await admin.query(`drop database if exists "${fresh.pathname.slice(1)}" with (force)`);
      await admin.end();
    }
  });

  it('takes the plan, currency and mode it is told (--flag=value works too)', async () => {
    const out = await adminJson('store', 'create', '--name=Cli Paid', '--plan', 'paid', '--currency=mad', '--mode', 'tracking_only');
    expect(out.store).toMatchObject({ plan: 'paid', currency: 'MAD', mode: 'tracking_only' });
  });
});

describe('store plan and store show', () => {
  it('a plan change moves the limit GET /me reports from the next request (60 → 300)', async () => {
    const out = await adminJson('store', 'create', '--name', 'Cli Plan');
    expect((await me(out.keys.secret)).json().limits.requests_per_minute).toBe(60);
    const changed = await adminJson('store', 'plan', '--store', out.store.id, '--plan', 'paid');
    expect(changed).toEqual({ store: { ...out.store, plan: 'paid', paid_until: null } });
    expect((await me(out.keys.secret)).json().limits.requests_per_minute).toBe(300);
  });

  it('an unknown store id is an error: exit 1, "no store <id>" on stderr, nothing on stdout', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const run = await admin('store', 'plan', '--store', id, '--plan', 'paid', '--json');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`no store ${id}`);
  });

  it('store show lists the keys by prefix, never the keys themselves', async () => {
    const out = await adminJson('store', 'create', '--name', 'Cli Show');
    const shown = await adminJson('store', 'show', '--store', out.store.id);
    expect(shown.store).toEqual({ ...out.store, paid_until: null });
    expect(shown.keys.map((k: { kind: string }) => k.kind).sort()).toEqual(['publishable', 'secret']);
    expect(Object.keys(shown.keys[0])).toEqual(
      expect.arrayContaining(['id', 'kind', 'prefix', 'scopes', 'origins', 'created_at', 'revoked_at']),
    );
    const text = JSON.stringify(shown);
    expect(text).not.toContain(out.keys.secret);
    expect(text).not.toContain(out.keys.publishable);
  });
});

describe('key create', () => {
  let storeId: string;
  beforeAll(async () => {
    storeId = (await adminJson('store', 'create', '--name', 'Cli Key Store')).store.id;
  });

  it('a secret key holds exactly the scopes asked for, and works at once', async () => {
    const out = await adminJson('key', 'create', '--store', storeId, '--kind', 'secret', '--scopes', 'orders:read,webhooks:write');
    expect(out).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^svc_live_sk_/),
      kind: 'secret',
      scopes: ['orders:read', 'webhooks:write'],
      origins: [],
    });
    expect((await me(out.key)).json().key.scopes).toEqual(['orders:read', 'webhooks:write']);
  });

  it('a publishable key keeps its allowed websites as origins', async () => {
    const out = await adminJson(
      'key',
      'create',
      '--store',
      storeId,
      '--kind',
      'publishable',
      '--origins',
      'https://a.example,https://b.example/',
    );
    expect(out).toMatchObject({
      kind: 'publishable',
      scopes: ['products:read', 'checkout:write', 'tracking:read'],
      origins: ['https://a.example', 'https://b.example'],
    });
  });

  it('a scope the kind may not hold is refused: exit 2, message on stderr, nothing on stdout', async () => {
    const [secret, publishable] = await Promise.all([
      admin('key', 'create', '--store', storeId, '--kind', 'secret', '--scopes', 'connection:manage', '--json'),
      admin('key', 'create', '--store', storeId, '--kind', 'publishable', '--scopes', 'webhooks:write', '--json'),
    ]);
    expect(secret).toMatchObject({ code: 2, stdout: '' });
    expect(secret.stderr).toContain('connection:manage');
    expect(publishable).toMatchObject({ code: 2, stdout: '' });
    expect(publishable.stderr).toContain('webhooks:write');
  });

  it('a malformed website or an unknown --plan value is a usage error naming the option', async () => {
    const [origin, plan] = await Promise.all([
      admin('key', 'create', '--store', storeId, '--kind', 'publishable', '--origins', 'ftp://x.example', '--json'),
      admin('store', 'create', '--name', 'X', '--plan', 'gold', '--json'),
    ]);
    expect(origin).toMatchObject({ code: 2, stdout: '' });
    expect(origin.stderr).toContain('--origins');
    expect(plan).toMatchObject({ code: 2, stdout: '' });
    expect(plan.stderr).toContain('--plan must be free or paid');
  });
});

describe('key revoke', () => {
  it('a revoked key answers 401 from the next request', async () => {
    const { store } = await adminJson('store', 'create', '--name', 'Cli Revoke');
    const key = await adminJson('key', 'create', '--store', store.id, '--kind', 'secret');
    expect((await me(key.key)).statusCode).toBe(200);
    expect(await adminJson('key', 'revoke', '--id', key.id)).toEqual({ id: key.id, revoked: true });
    expect((await me(key.key)).statusCode).toBe(401);
  });

  it('an unknown key id is an error: exit 1', async () => {
    const run = await admin('key', 'revoke', '--id', '00000000-0000-4000-8000-000000000000', '--json');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('no key');
  });
});

describe('command line', () => {
  it('an unknown command exits 2 with the usage on stderr and nothing on stdout', async () => {
    const run = await admin('frobnicate');
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain('unknown command "frobnicate"');
    expect(run.stderr).toContain('Usage: npm run --silent admin --');
  });

  it('without --json the output is text for people, warning that the keys are shown only now', async () => {
    const run = await admin('store', 'create', '--name', 'Cli Text');
    expect(run.code, run.stderr).toBe(0);
    expect(() => JSON.parse(run.stdout)).toThrow();
    expect(run.stdout).toMatch(/plan: +free/);
    expect(run.stdout).toMatch(/secret: +svc_live_sk_/);
    expect(run.stdout).toContain('shown only now');
  });
});

describe('the listings: store list, key list, owner list, webhooks list', () => {
  it('store list shows a created store; key list its keys without the keys themselves', async () => {
    const made = await adminJson('store', 'create', '--name', 'Cli Listed');
    const { stores } = await adminJson('store', 'list');
    expect(stores).toContainEqual(made.store);
    const { keys } = await adminJson('key', 'list', '--store', made.store.id);
    expect(keys.map((k: { kind: string }) => k.kind).sort()).toEqual(['publishable', 'secret']);
    const text = JSON.stringify(keys);
    expect(text).not.toContain(made.keys.secret);
    expect(text).not.toContain(made.keys.publishable);
    const people = await admin('key', 'list', '--store', made.store.id);
    expect(people.stdout).toMatch(/^keys \(2\):/);
  });

  it('owner list shows an account and the stores it runs, never its password', async () => {
    const made = await adminJson('store', 'create', '--name', 'Cli Owned');
    const email = `lister-${Date.now()}@example.com`;
    expect((await admin('owner', 'add', '--email', email, '--store', made.store.id)).code).toBe(0);
    const { owners } = await adminJson('owner', 'list');
    const mine = owners.find((o: { email: string }) => o.email === email);
    expect(mine).toMatchObject({ email, stores: [made.store.id] });
    expect(Object.keys(mine).sort()).toEqual(['created_at', 'email', 'id', 'stores']);
  });

  it('webhooks list shows a store’s endpoints without their secrets; an unknown store is refused', async () => {
    const made = await adminJson('store', 'create', '--name', 'Cli Hooks');
    // Written as the API writes it (the API's own checks of the URL are its tests'): a sealed secret beside it.
    const id = randomUUID();
    await t.orm.em
      .fork()
      .execute(`insert into webhook_endpoints (id, store_id, url, events, secret_sealed) values (?, ?, ?, string_to_array(?, ','), ?)`, [
        id,
        made.store.id,
        'https://hooks.example.com/in',
        'order.created',
        'sealed-secret-text',
      ]);
    const { endpoints } = await adminJson('webhooks', 'list', '--store', made.store.id);
    expect(endpoints).toEqual([
      { id, url: 'https://hooks.example.com/in', events: ['order.created'], active: true, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(endpoints)).not.toContain('sealed-secret-text');
    const unknown = await admin('webhooks', 'list', '--store', '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no store');
  });
});
