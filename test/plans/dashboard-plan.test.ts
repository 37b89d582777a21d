// The dashboard shows the plan and its end read-only (the operator sets it) and refuses a plan change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStorePlan } from '../../services/plans/change.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PageClient } from '../dashboard/client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

async function ownerWithStore() {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore();
  const settings = `/dashboard/stores/${storeId}/settings`;
  return { c, storeId, settings };
}
const planOf = async (storeId: string) =>
  (await t.orm.em.fork().execute<{ plan: string }[]>(`select plan from stores where id = ?`, [storeId]))[0]!.plan;

describe('the plan in the dashboard is the operator’s', () => {
  it('settings show the plan and its end read-only, with no plan field, and say to ask the operator', async () => {
    const { c, storeId, settings } = await ownerWithStore();
    let body = (await c.get(settings)).body;
    expect(body).not.toMatch(/name="plan"/);
    expect(body).toContain('This store is on the <strong>free</strong> plan.');
    expect(body).toContain('ask the operator');

    await setStorePlan(t.orm.em.fork(), storeId, 'paid', new Date('2031-05-01T12:30:00Z'));
    body = (await c.get(settings)).body;
    expect(body).toContain('This store is on the <strong>paid</strong> plan, until 2031-05-01 12:30 UTC.');
    expect((await c.get(`/dashboard/stores/${storeId}`)).body).toMatch(
      /<th scope="row">Plan<\/th><td>paid, until 2031-05-01 12:30 UTC<\/td>/,
    );

    // An end that has passed (the timer not yet run): free, and when the paid plan ended.
    await t.orm.em.fork().execute(`update stores set paid_until = '2020-02-03T04:05:00Z' where id = ?`, [storeId]);
    body = (await c.get(settings)).body;
    expect(body).toContain('This store is on the <strong>free</strong> plan (the paid plan ended 2020-02-03 04:05 UTC).');
  });

  it('a settings form asking for another plan is refused with 400 and changes nothing; the same plan is accepted', async () => {
    const { c, storeId, settings } = await ownerWithStore();
    const fields = { name: 'Kept', currency: 'EUR', mode: 'full', standard_delivery_fee: '0', published: 'on' };
    const refused = await c.post(settings, { ...fields, name: 'Changed', plan: 'paid' }, { from: settings });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('ask the operator');
    expect(await planOf(storeId)).toBe('free');
    const [row] = await t.orm.em.fork().execute<{ name: string }[]>(`select name from stores where id = ?`, [storeId]);
    expect(row!.name).not.toBe('Changed');
    expect((await c.post(settings, { ...fields, plan: 'free' }, { from: settings })).statusCode).toBe(303);
    expect((await c.post(settings, fields, { from: settings })).statusCode).toBe(303);
    expect(await planOf(storeId)).toBe('free');
  });
});
