// Each store has its own outbound budget, so one account may not make stores without end: an account
// creates at most STORES_PER_ACCOUNT stores itself, and the page says so when it has them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnedStore, STORES_PER_ACCOUNT } from '../../services/accounts/stores.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { sql } from '../orders/fixtures.js';
import { PageClient } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

describe('stores per account', () => {
  it(`an account creates at most ${STORES_PER_ACCOUNT} stores; past that the dashboard refuses with 409 and says why, also for a burst`, async () => {
    const c = new PageClient(t);
    const email = await c.signUp();
    const [owner] = await sql<{ id: string }>(t, 'select id from owners where email = ?', [email]);
    for (let i = 0; i < STORES_PER_ACCOUNT - 2; i++) await createOwnedStore(t.orm.em.fork(), owner!.id, { name: `Limit ${i}` });

    // Two places left, five creations at once: two are made, three refused, never a 21st store.
    const form = { name: 'One more', currency: 'EUR' };
    const burst = await Promise.all(Array.from({ length: 5 }, () => c.post('/dashboard/stores', form, { from: '/dashboard' })));
    expect(burst.map((r) => r.statusCode).sort()).toEqual([303, 303, 409, 409, 409]);
    const refused = burst.find((r) => r.statusCode === 409)!;
    expect(refused.body).toContain(`An account can have at most ${STORES_PER_ACCOUNT} stores`);
    const owned = await sql<{ n: number }>(t, 'select count(*)::int as n from owner_stores where owner_id = ?', [owner!.id]);
    expect(owned[0]!.n).toBe(STORES_PER_ACCOUNT);

    // Another account is not touched by this one's limit.
    const other = new PageClient(t);
    await other.signUp();
    expect(await other.createStore()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
