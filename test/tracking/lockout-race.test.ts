// The spec's lockout ("after five wrong tries, 429 for 15 minutes") holds against a burst: tries of one
// order number take turns under a lock, so a burst of guesses from many clients gets exactly five
// comparisons and the right contact, once the lockout runs, is refused (issue 23, item 2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createOrder, lockoutRow, nextNumber, postForm, SHOPPER, track, trackingStore } from './fixtures.js';

// The spec's figures: five wrong tries, then 429 for 15 minutes (the defaults).
let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());
const MAX_WRONG = 5;

const count = (answers: LightMyRequestResponse[], status: number) => answers.filter((r) => r.statusCode === status).length;

/** 19 wrong contacts and the right one, each from its own client, all at once; the right one is last in line. */
const burst = (send: (contact: string) => Promise<LightMyRequestResponse>) =>
  Promise.all([...Array.from({ length: 19 }, (_v, i) => send(String(1000 + i))), send(SHOPPER.last4)]);

function expectLockoutHeld(answers: LightMyRequestResponse[]) {
  const right = answers.at(-1)!;
  // At most five wrong contacts compared; every other try found the lockout.
  expect(count(answers.slice(0, -1), 422)).toBeLessThanOrEqual(MAX_WRONG);
  expect(count(answers, 422) + count(answers, 429) + (right.statusCode === 200 ? 1 : 0)).toBe(20);
  // The right contact was either compared before the fifth wrong one (200) or refused (429): never compared after it.
  if (right.statusCode === 200) expect(count(answers, 422)).toBeLessThanOrEqual(MAX_WRONG);
  else expect(right.statusCode).toBe(429);
}

describe('a burst of wrong contacts cannot race the lockout', () => {
  it('GET /tracking: 19 wrong contacts and the right one at once compare at most five, and the right one is refused once locked', async () => {
    const s = await trackingStore(t);
    const number = nextNumber('R');
    await createOrder(t, s.connection, number);
    const answers = await burst((contact) => track(t, s.secret, { order: number, contact }));
    expectLockoutHeld(answers);
    const row = await lockoutRow(t, s.store.id, number);
    expect(row!.wrong_count).toBe(MAX_WRONG);
    expect(row!.locked_until).not.toBeNull();
    expect((await track(t, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(429);
  });

  it('the store’s tracking page form: the same burst compares at most five', async () => {
    const s = await trackingStore(t);
    const number = nextNumber('R');
    await createOrder(t, s.connection, number);
    const answers = await burst((contact) => postForm(t, `/s/${s.store.slug}/track`, { order: number, contact }));
    expectLockoutHeld(answers);
    expect((await lockoutRow(t, s.store.id, number))!.wrong_count).toBe(MAX_WRONG);
    expect((await postForm(t, `/s/${s.store.slug}/track`, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(429);
  });
});
