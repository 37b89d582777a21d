import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, createListeningTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore } from '../helpers/store.js';
import { replayUpdates } from '../../workflows/connections/definitions.js';
import { connectedPlugin, mirroredOrder } from './fixtures.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const admin = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: t.baseUrl } },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );

let t: TestApp & { baseUrl: string };
beforeAll(async () => {
  t = await createListeningTestApp();
});
afterAll(() => t.close());

const failAll = (connectionId: string) =>
  t.orm.em
    .fork()
    .execute(
      `update connection_updates set push_failed = true, push_attempts = 8, last_push_error = 'answered 503' where connection_id = ? and state = 'waiting'`,
      [connectionId],
    );

describe('support: connection approve, pushes list and replay', () => {
  it('connection approve issues a code the plugin can exchange', async () => {
    const s = await createTestStore(t.orm);
    const run = await admin(
      'connection',
      'approve',
      '--store',
      s.store.id,
      '--platform',
      'platform_b',
      '--site-url',
      'https://cli-shop.example',
    );
    expect(run.code, run.stderr).toBe(0);
    const { code, expires_at } = JSON.parse(run.stdout);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now());
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/connect/exchange',
      payload: { code, site_url: 'https://cli-shop.example' },
    });
    expect(res.statusCode).toBe(200);
    const conn = await t.request({ method: 'GET', url: '/api/v1/connection', headers: bearer(res.json().api_key) });
    expect(conn.json().connection.platform).toBe('platform_b');
  });

  it('lists failed pushes and replays them once the shop is back', { timeout: 150_000 }, async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'S-1');
    c.plugin.downWith = 503;
    await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(c.secret), payload: { status: 'shipped' } });
    // At least one failed attempt (under load the back-off may have made a second before we look).
    const attempts = async () =>
      (
        (JSON.parse((await admin('pushes', 'list', '--connection', c.connectionId)).stdout || '{}').updates ?? []) as {
          push_attempts: number;
        }[]
      )[0]?.push_attempts ?? 0;
    await eventually(async () => (await attempts()) >= 1, 60_000, 'a failed push');
    await failAll(c.connectionId);
    const failed = JSON.parse((await admin('pushes', 'list', '--connection', c.connectionId, '--failed')).stdout);
    expect(failed.updates).toHaveLength(1);
    expect(failed.updates[0]).toMatchObject({ external_id: 'S-1', state: 'waiting', push_failed: true, last_push_error: 'answered 503' });

    c.plugin.downWith = null;
    const replay = await admin('pushes', 'replay', '--connection', c.connectionId);
    expect(JSON.parse(replay.stdout)).toEqual({ replayed: 1 });
    await eventually(() => c.shop.applyCount === 1, 60_000, 'the replayed push');
  });

  it('an operator can replay from the Temporal UI with the replayUpdates signal', { timeout: 150_000 }, async () => {
    const c = await connectedPlugin(t);
    const id = await mirroredOrder(c, 'S-2');
    c.plugin.downWith = 500;
    await t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(c.secret), payload: { tracking: { number: 'Z9' } } });
    await eventually(
      async () => {
        const [row] = await t.orm.em
          .fork()
          .execute<{ push_attempts: number }[]>(`select push_attempts from connection_updates where connection_id = ?`, [c.connectionId]);
        return (row?.push_attempts ?? 0) >= 1;
      },
      60_000,
      'a failed push',
    );
    await failAll(c.connectionId);
    c.plugin.downWith = null;
    await t.temporal.client.workflow.getHandle(`connection-push/${c.connectionId}`).signal(replayUpdates);
    await eventually(() => c.shop.applyCount === 1, 60_000, 'the push after the signal');
  });

  it('unknown connection ids are an error', async () => {
    const run = await admin('pushes', 'list', '--connection', '00000000-0000-4000-8000-000000000000');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
  });
});
