import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { eventTypes, orderBody, orderCount, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
});
afterAll(() => t.close());

describe('racing upserts of one external_id give one order and never a 500', () => {
  it('20 identical POSTs at once: one order, one created, the rest unchanged with the order', async () => {
    const body = orderBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post(body)));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(19);
    const actions = answers.map((r) => r.json().action);
    expect(actions.filter((a) => a === 'created')).toHaveLength(1);
    expect(actions.filter((a) => a === 'unchanged')).toHaveLength(19);
    expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(1);
    const ids = new Set(answers.map((r) => r.json().order?.id));
    expect(ids.size).toBe(1);
    expect(await eventTypes(t, [...ids][0]!)).toEqual(['order.created']);
  });

  it('20 different POSTs of one external_id at once: one order, no 500, the last write is held', async () => {
    const base = orderBody();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api.post({ ...base, note: `version ${i}` })));
    expect(
      answers.every((r) => r.statusCode === 200 || r.statusCode === 201),
      answers.map((r) => r.body).join('\n'),
    ).toBe(true);
    const actions = answers.map((r) => r.json().action);
    expect(actions.filter((a) => a === 'created')).toHaveLength(1);
    expect(actions.every((a) => ['created', 'updated', 'unchanged'].includes(a))).toBe(true);
    expect(answers.every((r) => r.json().order !== null)).toBe(true);
    expect(await orderCount(t, s.store.id, 'external_id = ?', [base.external_id])).toBe(1);
    const [row] = await sql<{ id: string }>(t, 'select id from orders where store_id = ? and external_id = ?', [
      s.store.id,
      base.external_id,
    ]);
    // Exactly one creation event; every other write is an update of the same row.
    const types = await eventTypes(t, row!.id);
    expect(types.filter((x) => x === 'order.created')).toHaveLength(1);
    expect(types.filter((x) => x === 'order.updated')).toHaveLength(actions.filter((a) => a === 'updated').length);
  });

  it('two batches racing on overlapping external ids give one order per id', async () => {
    const bodies = Array.from({ length: 10 }, () => orderBody());
    const reversed = [...bodies].reverse().map((b) => ({ ...b, note: 'second' }));
    const [a, b] = await Promise.all([api.batch(bodies), api.batch(reversed)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    for (const r of [...a.json().results, ...b.json().results]) expect(r.ok).toBe(true);
    for (const body of bodies) expect(await orderCount(t, s.store.id, 'external_id = ?', [body.external_id])).toBe(1);
  });
});
