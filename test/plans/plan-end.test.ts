// Plans that end: the operator's `store plan --until`, the plan-end workflow on the real worker that falls
// the store back to free (nothing deleted), an extension that an old timer never undoes, and reads that
// treat a passed end as free even before the timer has run.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectionAllowance } from '../../services/connections/codes.js';
import { setStorePlan } from '../../services/plans/change.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestConnection, createTestStore } from '../helpers/store.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the real operator CLI against the run's database. */
function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: 'http://127.0.0.1:3999' };
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: repoRoot, env }, (err, stdout, stderr) =>
      done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
async function plan(storeId: string, ...rest: string[]) {
  const run = await admin('store', 'plan', '--store', storeId, ...rest, '--json');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { store: { plan: string; paid_until: string | null } };
}

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const limitOf = async (key: string) =>
  (await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })).json().limits.requests_per_minute as number;
/** The store's row as stored (paid_until as ISO 8601, or null). */
async function stored(storeId: string) {
  const [row] = await t.orm.em
    .fork()
    .execute<{ plan: string; paid_until: string | null }[]>(`select plan, paid_until from stores where id = ?`, [storeId]);
  return { plan: row!.plan, paid_until: row!.paid_until === null ? null : new Date(row!.paid_until).toISOString() };
}
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
/** The store's plan-end workflow, once the outbox relay has handed it over. */
async function planEndOf(storeId: string) {
  const handle = t.temporal.client.workflow.getHandle(workflowIds.planEnd(storeId));
  await eventually(
    () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    20_000,
    'plan-end workflow started',
  );
  return handle;
}

describe('store plan --until', () => {
  it('refuses an end with the free plan, an end in the past, and a text that is no ISO 8601 time', async () => {
    const { store } = await createTestStore(t.orm);
    for (const [args, words] of [
      [['--plan', 'free', '--until', inSeconds(3600)], 'goes with --plan paid'],
      [['--plan', 'paid', '--until', '2020-01-01T00:00:00Z'], 'must be in the future'],
      [['--plan', 'paid', '--until', 'next tuesday'], 'ISO 8601'],
    ] as const) {
      const run = await admin('store', 'plan', '--store', store.id, ...args, '--json');
      expect(run.code, words).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(words);
    }
    expect((await stored(store.id)).plan).toBe('free');
  });

  it(
    'a paid plan with an end has paid limits until then; the timer falls the store back to free, nothing deleted',
    { timeout: 90_000 },
    async () => {
      const s = await createTestStore(t.orm);
      // Far enough ahead for the CLI (a process of its own) to start on a busy machine (10 s was not, at load 30).
      const until = inSeconds(20);
      const out = await plan(s.store.id, '--plan', 'paid', '--until', until);
      expect(out.store).toMatchObject({ id: s.store.id, plan: 'paid', paid_until: until });
      expect(await limitOf(s.secret)).toBe(300);
      // Three shops connected while paid (the paid allowance is 5).
      for (const n of [1, 2, 3]) await createTestConnection(t.orm, s.store.id, 'platform_a', `https://paid-${n}.example`);
      expect((await connectionAllowance(t.orm.em.fork(), s.store.id)).full).toBe(false);

      const handle = await planEndOf(s.store.id);
      expect(await handle.result()).toEqual({ outcome: 'fell_back', paidUntil: until });
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
      expect(await stored(s.store.id)).toEqual({ plan: 'free', paid_until: until });
      expect(await limitOf(s.secret)).toBe(60);
      // Nothing deleted: the three shops stay connected, but a new one is beyond the free allowance (1).
      const [row] = await t.orm.em
        .fork()
        .execute<{ n: number }[]>(`select count(*)::int as n from connections where store_id = ? and status = 'active'`, [s.store.id]);
      expect(row!.n).toBe(3);
      expect(await connectionAllowance(t.orm.em.fork(), s.store.id)).toMatchObject({ plan: 'free', limit: 1, active: 3, full: true });
      const shown = await admin('store', 'show', '--store', s.store.id, '--json');
      expect(JSON.parse(shown.stdout).store).toMatchObject({ plan: 'free', paid_until: null });
    },
  );

  it(
    'running it again later moves the end: the old timer never undoes the extension; a plan without an end stops the timer',
    { timeout: 90_000 },
    async () => {
      const s = await createTestStore(t.orm);
      // The end and its extension through the service the CLI runs (no process start to race the 4 s timer).
      const first = inSeconds(4);
      await setStorePlan(t.orm.em.fork(), s.store.id, 'paid', new Date(first));
      const handle = await planEndOf(s.store.id);
      const later = inSeconds(3600);
      await setStorePlan(t.orm.em.fork(), s.store.id, 'paid', new Date(later));
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(first) - Date.now()) + 2500));
      expect(await stored(s.store.id)).toEqual({ plan: 'paid', paid_until: later });
      expect(await limitOf(s.secret)).toBe(300);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      // Paid with no end: the same workflow is told and ends without touching the store.
      expect((await plan(s.store.id, '--plan', 'paid')).store).toMatchObject({ plan: 'paid', paid_until: null });
      expect(await handle.result()).toEqual({ outcome: 'kept', paidUntil: null });
      expect(await stored(s.store.id)).toEqual({ plan: 'paid', paid_until: null });
    },
  );
});

describe('the database is the truth for the timer', () => {
  it(
    'an end the workflow was never told of (a hand-off lost or late) is found at the old end and waited for',
    { timeout: 90_000 },
    async () => {
      const s = await createTestStore(t.orm);
      const first = inSeconds(4);
      await setStorePlan(t.orm.em.fork(), s.store.id, 'paid', new Date(first));
      const handle = await planEndOf(s.store.id);
      // Moved behind the workflow's back, to the microsecond as SQL writes it.
      await t.orm.em
        .fork()
        .execute(`update stores set paid_until = ?::timestamptz + interval '3.000123 seconds' where id = ?`, [first, s.store.id]);
      const later = (await stored(s.store.id)).paid_until!;
      expect(await handle.result()).toEqual({ outcome: 'fell_back', paidUntil: later });
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(later));
      expect((await stored(s.store.id)).plan).toBe('free');
    },
  );
});

describe('a passed end counts as free on every read, even before the timer has run', () => {
  it('limits, connected-shop allowance and the tracking badge follow the end, not the stored plan', async () => {
    const s = await createTestStore(t.orm);
    await t.orm.em.fork().execute(`update stores set plan = 'paid', paid_until = now() - interval '1 minute' where id = ?`, [s.store.id]);
    expect(await limitOf(s.secret)).toBe(60);
    expect(await connectionAllowance(t.orm.em.fork(), s.store.id)).toMatchObject({ plan: 'free', limit: 1 });
    const page = await t.request({ method: 'GET', url: `/s/${s.store.slug}/track` });
    expect(page.body).toContain('Tracking by Store Commerce');

    await t.orm.em.fork().execute(`update stores set paid_until = now() + interval '1 hour' where id = ?`, [s.store.id]);
    expect(await limitOf(s.secret)).toBe(300);
    expect(await connectionAllowance(t.orm.em.fork(), s.store.id)).toMatchObject({ plan: 'paid', limit: 5 });
    expect((await t.request({ method: 'GET', url: `/s/${s.store.slug}/track` })).body).not.toContain('Tracking by Store Commerce');
  });
});
