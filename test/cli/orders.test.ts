import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const admin = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: 'http://127.0.0.1:3999' } },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

describe('orders show (support looks an order up)', () => {
  it('prints the order as the API shows it, its status history and its events', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 'cli-1', number: 'N-77', totals: { total: 12.5 } },
    });
    const id = created.json().order.id;
    await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${id}`,
      headers: bearer(s.secret),
      payload: { status: 'confirmed', comment: 'called the shopper' },
    });

    const run = await admin('orders', 'show', '--store', s.store.id, '--number', 'N-77', '--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.order).toMatchObject({ id, order_number: 'N-77', status: 'confirmed', totals: { total: 12.5 } });
    expect(out.history.map((h: { status: string }) => h.status)).toEqual(['pending', 'confirmed']);
    expect(out.history[1].comment).toBe('called the shopper');
    expect(out.events.map((e: { type: string }) => e.type)).toEqual(['order.created', 'order.updated', 'order.confirmed']);

    const byExternal = await admin('orders', 'show', '--store', s.store.id, '--external-id', 'cli-1');
    expect(byExternal.code).toBe(0);
    expect(byExternal.stdout).toContain('order.confirmed');
  });

  it('an unknown order number is an error on stderr with an empty stdout', async () => {
    const run = await admin('orders', 'show', '--store', s.store.id, '--number', 'nope', '--json');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/no order/);
  });

  it('asks for exactly one way to find the order', async () => {
    const run = await admin('orders', 'show', '--store', s.store.id, '--json');
    expect(run.code).toBe(2);
  });
});
