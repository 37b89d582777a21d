// Secrets part of the reliability battery (issue 9): keys stored only as hashes, webhook and connection
// secrets encrypted at rest, and no key, secret or connect code in any log line or database column.
import { closeSync, createReadStream, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashKey, KEY_LIKE } from '../../domain/api-keys.js';
import { openSecret } from '../../domain/secret-box.js';
import { approveConnection } from '../../services/connections/codes.js';
import { decodeKey } from '../../config/env.js';
import { sql } from '../catalog/fixtures.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';

let t: TestApp;
let s: TestStore;
let legacy: string;
let admin: string;
let webhook: { id: string; secret: string };
let connection: { api_key: string; webhook_secret: string; connection_id: string; code: string };
/** A real key written only into request bodies (orders keep what they are sent, so it is not checked at rest). */
let bodyKey: string;
let hookReceiver: Awaited<ReturnType<typeof startReceiver>>;
let pushReceiver: Awaited<ReturnType<typeof startReceiver>>;
/** Request ids of every request this file made, to know when the API log has them all. */
const requestIds: string[] = [];
const logDir = inject('logDir');
const LOGS = ['api.log', 'worker.log', 'temporal.log'];
/** Where each log ended when this file began: everything this file causes is written after it. */
const logStart: Record<string, number> = {};
const sizeOf = (file: string) => (existsSync(join(logDir, file)) ? statSync(join(logDir, file)).size : 0);
/** What a log gained since this file began (the logs are appended to across runs and grow large). */
function logSinceStart(file: string): string {
  const path = join(logDir, file);
  const size = sizeOf(file);
  const from = size >= (logStart[file] ?? 0) ? (logStart[file] ?? 0) : 0;
  if (size === from) return '';
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(size - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

async function req(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  requestIds.push(String(res.headers['x-request-id']));
  return res;
}

beforeAll(async () => {
  for (const file of LOGS) logStart[file] = sizeOf(file);
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  legacy = (await addKey(t.orm, s.store.id, { kind: 'legacy' })).key;
  admin = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] })).key;
  bodyKey = (await addKey(t.orm, s.store.id, { kind: 'secret' })).key;
  hookReceiver = await startReceiver();
  const created = await req({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(admin), payload: { url: hookReceiver.url() } });
  expect(created.statusCode, created.body).toBe(201);
  webhook = { id: created.json().id, secret: created.json().secret };
  // A connection through a real code exchange, with a push URL so the worker signs and sends with its secret.
  const site = `https://secrets-${Date.now()}.example`;
  const { code } = await approveConnection(t.orm.em.fork(), {
    storeId: s.store.id,
    platform: 'platform_a',
    siteUrl: site,
    ttlSeconds: 600,
  });
  const exchanged = await req({ method: 'POST', url: '/api/v1/connect/exchange', payload: { code, site_url: site } });
  expect(exchanged.statusCode, exchanged.body).toBe(200);
  connection = { ...exchanged.json(), code };
  pushReceiver = await startReceiver((r, res) => {
    const ids = (JSON.parse(r.body).updates as { id: string }[]).map((u) => u.id);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ applied: ids, failed: [] }));
  });
  const beat = await req({
    method: 'PUT',
    url: '/api/v1/connection',
    headers: bearer(connection.api_key),
    payload: { site_url: site, push_url: pushReceiver.url('/push') },
  });
  expect(beat.statusCode, beat.body).toBe(200);
}, 60_000);

afterAll(async () => {
  await hookReceiver?.close();
  await pushReceiver?.close();
  await t.close();
});

/** Every plain key, secret and code this file created (and keeps out of bodies). */
const plainSecrets = () => [
  s.secret,
  s.publishable,
  legacy,
  admin,
  webhook.secret,
  connection.api_key,
  connection.webhook_secret,
  connection.code,
];

describe('keys are stored only as hashes', () => {
  it('each api_keys row holds the SHA-256 of its key and a short display prefix, never the key', async () => {
    const rows = await sql<Record<string, unknown>>(t, `select * from api_keys where store_id = ?`, [s.store.id]);
    const keys = [s.secret, s.publishable, legacy, admin, bodyKey, connection.api_key];
    expect(rows).toHaveLength(keys.length);
    for (const key of keys) {
      const row = rows.find((r) => r.key_hash === hashKey(key));
      expect(row, 'a row hashed from the key').toBeDefined();
      const hex = key.replace(/^svc_live_(sk_|pk_)?/, '');
      for (const [column, value] of Object.entries(row!)) {
        const text = JSON.stringify(value) ?? '';
        expect(text.includes(key), `api_keys.${column} holds the key`).toBe(false);
        // Not even most of its random part (the display prefix keeps 4 hex characters).
        expect(text.includes(hex.slice(0, 12)), `api_keys.${column} holds part of the key`).toBe(false);
      }
    }
  });

  it('no column of any table holds a plain key, webhook secret, connection secret or connect code', async () => {
    const tables = await sql<{ table_name: string }>(
      t,
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThan(10);
    const secrets = plainSecrets();
    const anyOf = secrets.map(() => 'strpos(to_jsonb(x)::text, ?) > 0').join(' or ');
    const hits: string[] = [];
    for (const { table_name } of tables) {
      const [row] = await sql<{ n: string }>(t, `select count(*) as n from "${table_name}" x where ${anyOf}`, secrets);
      if (Number(row!.n) > 0) hits.push(`${table_name}: ${row!.n}`);
    }
    expect(hits).toEqual([]);
  });
});

describe('webhook and connection secrets are encrypted at rest', () => {
  const key = () => decodeKey(inject('secretsKey'))!;

  it('webhook_endpoints.secret_sealed opens to the secret with the SECRETS_KEY and does not contain it', async () => {
    const [row] = await sql<{ secret_sealed: string }>(t, `select secret_sealed from webhook_endpoints where id = ?`, [webhook.id]);
    expect(row!.secret_sealed).toMatch(/^v1\./);
    expect(row!.secret_sealed).not.toContain(webhook.secret.replace(/^whsec_/, ''));
    expect(openSecret(key(), row!.secret_sealed)).toBe(webhook.secret);
    expect(() => openSecret(Buffer.alloc(32, 7), row!.secret_sealed)).toThrow();
  });

  it('connections.webhook_secret_sealed opens to the connection secret and does not contain it', async () => {
    const [row] = await sql<{ webhook_secret_sealed: string }>(t, `select webhook_secret_sealed from connections where id = ?`, [
      connection.connection_id,
    ]);
    expect(row!.webhook_secret_sealed).toMatch(/^v1\./);
    expect(row!.webhook_secret_sealed).not.toContain(connection.webhook_secret.replace(/^whsec_/, ''));
    expect(openSecret(key(), row!.webhook_secret_sealed)).toBe(connection.webhook_secret);
  });

  it('the same secret sealed twice gives different texts (random IV)', async () => {
    const again = await req({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(admin),
      payload: { url: hookReceiver.url('/second'), events: ['order.cancelled'] },
    });
    const rows = await sql<{ secret_sealed: string }>(t, `select secret_sealed from webhook_endpoints where id in (?, ?)`, [
      webhook.id,
      again.json().id,
    ]);
    expect(new Set(rows.map((r) => r.secret_sealed)).size).toBe(2);
  });
});

describe('no key or secret reaches a log line', () => {
  it('keys sent in headers, the path, the query and bodies, and secrets used by the worker, appear in no log', async () => {
    // Keys the right way, in both headers and header forms.
    await req({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) });
    await req({ method: 'GET', url: '/api/v1/me', headers: { 'x-api-key': legacy } });
    await req({ method: 'GET', url: '/api/v1/me', headers: { authorization: `bearer   ${s.publishable}  ` } });
    await req({ method: 'GET', url: '/api/v1/me', headers: { authorization: s.secret } });
    // Keys the wrong way: in the path (known and unknown routes) and in the query.
    for (const url of [
      `/api/v1/orders/${s.secret}`,
      `/api/v1/${admin}`,
      `/nowhere/${legacy}/x`,
      `/api/v1/orders?api_key=${s.secret}`,
      `/api/v1/orders?q=${s.publishable}`,
      `/api/v1/me?${admin}=1`,
      `/track/${s.secret}`,
      `/s/${s.store.slug}/cart/${admin}`,
    ]) {
      const res = await req({ method: 'GET', url, headers: bearer(s.secret) });
      expect(res.statusCode, url).toBeLessThan(500);
    }
    // Keys and secrets in bodies: valid, invalid and unparsable ones.
    const order = await req({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: `sec-${Date.now()}`, totals: { total: 5 }, note: bodyKey },
    });
    expect(order.statusCode, order.body).toBe(201);
    await req({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 1, totals: { total: bodyKey }, status: webhook.secret },
    });
    await req({
      method: 'POST',
      url: '/api/v1/orders',
      headers: { ...bearer(s.secret), 'content-type': 'application/json' },
      payload: `{"external_id": "${connection.webhook_secret}", "totals": `,
    });
    await req({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(admin),
      payload: { url: `https://nowhere.invalid/?k=${admin}`, secret: webhook.secret },
    });
    await req({ method: 'POST', url: '/api/v1/connect/exchange', payload: { code: connection.code, site_url: 'https://other.example' } });
    await req({
      method: 'POST',
      url: '/api/v1/connection/updates/ack',
      headers: bearer(connection.api_key),
      payload: { applied: [connection.webhook_secret], failed: [{ id: s.secret, error: admin }] },
    });

    // The worker signs a webhook and a push with the stored secrets: wait for both to arrive.
    const mirrored = await req({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(connection.api_key),
      payload: { external_id: `sec-conn-${Date.now()}`, status: 'wc-processing', totals: { total: 9 } },
    });
    expect(mirrored.statusCode, mirrored.body).toBe(201);
    const shipped = await req({
      method: 'PATCH',
      url: `/api/v1/orders/${mirrored.json().order.id}`,
      headers: bearer(s.secret),
      payload: { status: 'shipped', comment: 'no secret here' },
    });
    expect(shipped.statusCode, shipped.body).toBe(200);
    await eventually(() => pushReceiver.received.length > 0, 30_000, 'the signed push');
    await eventually(() => hookReceiver.received.length > 0, 30_000, 'the signed webhook');

    // Logs are written asynchronously: wait until the API log holds this file's last request.
    const last = requestIds.at(-1)!;
    await eventually(() => logSinceStart('api.log').includes(last), 15_000, 'the API log to catch up');
    await new Promise((r) => setTimeout(r, 1000));

    // Whatever this file's keys and secrets could have reached was written after it began.
    const secrets = [...plainSecrets(), bodyKey];
    const leaks: string[] = [];
    for (const file of LOGS) {
      const text = logSinceStart(file);
      for (const secret of secrets) if (text.includes(secret)) leaks.push(`${file}: ${secret.slice(0, 14)}…`);
      // The random part alone (a log may cut a prefix off).
      for (const secret of secrets) {
        const core = secret.replace(/^(svc_live_(sk_|pk_)?|whsec_)/, '');
        if (text.includes(core.slice(0, 24))) leaks.push(`${file}: part of ${secret.slice(0, 14)}…`);
      }
    }
    expect(leaks).toEqual([]);
    // The log did record these requests (the check above is not vacuous).
    const text = logSinceStart('api.log');
    expect(requestIds.filter((id) => !text.includes(id))).toEqual([]);
  });

  it('no line this run wrote to the API or worker log holds anything shaped like a key or a whsec_ secret', async () => {
    // The run's id starts with its start time in base 36 (test/global-setup.ts); api.log is appended to across runs.
    const runId = new URL(inject('databaseUrl')).pathname.replace(/^\/sc_test_/, '');
    const started = parseInt(runId.split('_')[0]!, 36);
    const since = Number.isFinite(started) && started > 1.6e12 ? started : Date.now() - 10 * 60_000;
    const keyLike = new RegExp(KEY_LIKE.source, 'i');
    const found: string[] = [];
    for (const file of ['api.log', 'worker.log']) {
      const path = join(logDir, file);
      if (!existsSync(path)) continue;
      // Line by line: the file may be far larger than a string can be.
      for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
        const time = Number(/"time":(\d+)/.exec(line)?.[1] ?? 0);
        if (time < since) continue;
        if (keyLike.test(line) || /whsec_[A-Za-z0-9+/=_-]{20,}/.test(line)) found.push(`${file}: ${line.slice(0, 300)}`);
      }
    }
    expect(found).toEqual([]);
  }, 120_000);
});
