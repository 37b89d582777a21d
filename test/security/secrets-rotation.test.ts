// Rotating SECRETS_KEY: `secrets reseal` moves every stored secret from SECRETS_KEY_PREVIOUS to SECRETS_KEY.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../domain/secret-box.js';
import { openOrm } from '../../db/orm.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { createTestStore } from '../helpers/store.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;

/** The real CLI against the isolated database, with the keys given (hex), and nothing inherited. */
function reseal(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: Record<string, string | undefined> = { ...process.env, DATABASE_URL: db.url, ...env };
  if (!env.SECRETS_KEY) delete full.SECRETS_KEY;
  if (!env.SECRETS_KEY_PREVIOUS) delete full.SECRETS_KEY_PREVIOUS;
  return new Promise((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', 'secrets', 'reseal', '--json'],
      { cwd: repoRoot, env: full },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

const sealedOf = async (table: string, column: string, id: string) =>
  (await orm.em.fork().execute<{ s: string }[]>(`select ${column} as s from ${table} where id = ?`, [id]))[0]!.s;

const ids = { endpoint: randomUUID(), stranger: randomUUID(), connection: randomUUID() };
beforeAll(async () => {
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 2 });
  const { store } = await createTestStore(orm);
  const em = orm.em.fork();
  const endpoint = (id: string, url: string, sealed: string) =>
    em.execute(`insert into webhook_endpoints (id, store_id, url, events, secret_sealed) values (?, ?, ?, '{*}', ?)`, [
      id,
      store.id,
      url,
      sealed,
    ]);
  await endpoint(ids.endpoint, 'https://hooks.public.example/a', sealSecret(oldKey, 'whsec_endpoint'));
  // Sealed with a key nobody has any more: it cannot be moved, and is left as it is.
  await endpoint(ids.stranger, 'https://hooks.public.example/b', sealSecret(randomBytes(32), 'whsec_lost'));
  await em.execute(
    `insert into connections (id, store_id, platform, status, shop_url, webhook_secret_sealed) values (?, ?, 'platform_a', 'active', 'https://shop-a.example', ?)`,
    [ids.connection, store.id, sealSecret(oldKey, 'whsec_connection')],
  );
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

describe('secrets reseal', () => {
  it('seals every secret the previous key opens with the new key, keeping the secret itself', async () => {
    const strangerBefore = await sealedOf('webhook_endpoints', 'secret_sealed', ids.stranger);
    const run = await reseal({ SECRETS_KEY: newKey.toString('hex'), SECRETS_KEY_PREVIOUS: oldKey.toString('hex') });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      resealed: { webhook_endpoints: 1, connections: 1, chat_settings: 0, vapid_keys: 0 },
      unreadable: 1,
    });
    const moved = await sealedOf('webhook_endpoints', 'secret_sealed', ids.endpoint);
    expect(openSecret(newKey, moved)).toBe('whsec_endpoint');
    expect(() => openSecret(oldKey, moved)).toThrow();
    expect(openSecret(newKey, await sealedOf('connections', 'webhook_secret_sealed', ids.connection))).toBe('whsec_connection');
    expect(await sealedOf('webhook_endpoints', 'secret_sealed', ids.stranger)).toBe(strangerBefore);
  });

  it('a second run changes nothing', async () => {
    const run = await reseal({ SECRETS_KEY: newKey.toString('hex'), SECRETS_KEY_PREVIOUS: oldKey.toString('hex') });
    expect(JSON.parse(run.stdout)).toEqual({
      resealed: { webhook_endpoints: 0, connections: 0, chat_settings: 0, vapid_keys: 0 },
      unreadable: 1,
    });
  });

  it('without SECRETS_KEY it refuses, saying what to set', async () => {
    const run = await reseal({});
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/set SECRETS_KEY to the new key/);
  });
});
