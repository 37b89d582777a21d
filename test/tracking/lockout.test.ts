// The wrong-contact lockout end to end: the API's counter, 429 with Retry-After, the real Temporal
// workflow whose timer clears the row, and the liftLockout signal an operator sends from the Temporal UI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { liftLockout, trackingLockoutState } from '../../workflows/tracking/definitions.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/hand-off.js';
import { workflowIds } from '../../workflows/catalog.js';
import { createOrder, lockoutRow, nextNumber, postForm, SHOPPER, track, trackingStore, type TrackingStore } from './fixtures.js';

// Short timers: 3 wrong tries lock for 3 seconds. The TTL reaches the workflow as input written by the API.
let short: TestApp;
// A long lockout, to lift by signal before its timer could fire.
let long: TestApp;
beforeAll(async () => {
  short = await createTestApp({ TRACKING_LOCKOUT_SECONDS: '3', TRACKING_MAX_WRONG_CONTACT: '3' });
  long = await createTestApp({ TRACKING_LOCKOUT_SECONDS: '600', TRACKING_MAX_WRONG_CONTACT: '3' });
});
afterAll(async () => {
  await short.close();
  await long.close();
});

async function lockedOrder(t: TestApp): Promise<{ s: TrackingStore; number: string; orderId: string }> {
  const s = await trackingStore(t);
  const number = nextNumber('L');
  const orderId = await createOrder(t, s.connection, number);
  for (let i = 0; i < 3; i++) expect((await track(t, s.secret, { order: number, contact: '0000' })).statusCode).toBe(422);
  return { s, number, orderId };
}

describe('after TRACKING_MAX_WRONG_CONTACT wrong tries the order answers 429 for TRACKING_LOCKOUT_SECONDS', () => {
  it('answers 429 rate_limited with Retry-After, even with the right contact, then the timer ends it and clears the row', async () => {
    const { s, number } = await lockedOrder(short);
    const locked = await track(short, s.secret, { order: number, contact: SHOPPER.last4 });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.code).toBe('rate_limited');
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    expect((await track(short, s.secret, { order: number })).statusCode).toBe(429);
    expect((await lockoutRow(short, s.store.id, number))?.locked_until).not.toBeNull();

    // The workflow's timer fires, its activity clears the row, and the right contact works again.
    await eventually(
      async () => (await lockoutRow(short, s.store.id, number)) === undefined,
      20_000,
      'the workflow clears the lockout row',
    );
    expect((await track(short, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(200);
    const handle = short.temporal.client.workflow.getHandle(workflowIds.trackingLockout(s.store.id, number));
    await eventually(async () => (await handle.describe()).status.name === 'COMPLETED', 20_000, 'the lockout workflow ends');
  });

  it('counts per order across visitors and keys: three IPs and the page share one counter', async () => {
    const s = await trackingStore(short);
    const number = nextNumber('L');
    const orderId = await createOrder(short, s.connection, number);
    expect((await track(short, s.secret, { order: number, contact: '1000' }, { ip: '127.9.0.1' })).statusCode).toBe(422);
    expect((await track(short, s.publishable, { order: number, contact: '1001' }, { ip: '127.9.0.2' })).statusCode).toBe(422);
    expect((await postForm(short, `/track/${orderId}`, { contact: '1002' }, '127.9.0.3')).statusCode).toBe(422);
    const res = await track(short, s.secret, { order: number, contact: SHOPPER.last4 }, { ip: '127.9.0.4' });
    expect(res.statusCode).toBe(429);
    const page = await postForm(short, `/track/${orderId}`, { contact: SHOPPER.last4 });
    expect(page.statusCode).toBe(429);
    expect(page.headers['retry-after']).toMatch(/^\d+$/);
    expect(page.body).not.toContain('Mint tea');
  });

  it('every wrong try counts exactly once under concurrency, and the one reaching the maximum locks', async () => {
    const s = await trackingStore(long);
    const number = nextNumber('L');
    await createOrder(long, s.connection, number);
    const answers = await Promise.all(Array.from({ length: 8 }, () => track(long, s.secret, { order: number, contact: '4321' })));
    expect(answers.every((r) => r.statusCode === 422 || r.statusCode === 429)).toBe(true);
    const row = await lockoutRow(long, s.store.id, number);
    expect(row!.wrong_count).toBe(answers.filter((r) => r.statusCode === 422).length);
    expect(row!.locked_until).not.toBeNull();
  });
});

describe('the counter lives in PostgreSQL and the workflow only ends it', () => {
  it('wrong tries are forgotten once none came for TRACKING_LOCKOUT_SECONDS: the workflow clears the counting row', async () => {
    const s = await trackingStore(short);
    const number = nextNumber('L');
    await createOrder(short, s.connection, number);
    for (let i = 0; i < 2; i++) expect((await track(short, s.secret, { order: number, contact: '0000' })).statusCode).toBe(422);
    expect((await lockoutRow(short, s.store.id, number))?.wrong_count).toBe(2);
    await eventually(
      async () => (await lockoutRow(short, s.store.id, number)) === undefined,
      20_000,
      'the workflow forgets the wrong tries',
    );
    for (let i = 0; i < 2; i++) expect((await track(short, s.secret, { order: number, contact: '0000' })).statusCode).toBe(422);
    expect((await track(short, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(200);
  });

  it('a lookup never talks to Temporal: with it unreachable the lockout holds and the signal waits in the outbox', async () => {
    const offline = await createTestApp({
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TRACKING_LOCKOUT_SECONDS: '600',
      TRACKING_MAX_WRONG_CONTACT: '3',
    });
    try {
      const { s, number } = await lockedOrder(offline);
      expect((await track(offline, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(429);
      const rows = await offline.orm.em
        .fork()
        .execute<{ signal_name: string }[]>(`select signal_name from outbox where workflow_id = ?`, [
          workflowIds.trackingLockout(s.store.id, number),
        ]);
      expect(rows.map((r) => r.signal_name)).toEqual(['wrongContact', 'wrongContact', 'wrongContact']);
    } finally {
      await offline.close();
    }
  });
});

describe('the lockout is a Temporal workflow operators can see and lift', () => {
  it('runs under a readable id with the StoreId search attribute, and liftLockout clears it at once', async () => {
    const { s, number } = await lockedOrder(long);
    expect((await track(long, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(429);
    const id = workflowIds.trackingLockout(s.store.id, number);
    expect(id).toBe(`tracking-lockout/${s.store.id}/${number}`);
    const handle = long.temporal.client.workflow.getHandle(id);
    await eventually(
      async () => {
        const state = await handle.query(trackingLockoutState).catch(() => null);
        return state?.wrongCount === 3 && state.lockedUntil !== null;
      },
      20_000,
      'the workflow received the wrong tries',
    );
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.StoreId)).toBe(s.store.id);

    await handle.signal(liftLockout);
    await eventually(async () => (await lockoutRow(long, s.store.id, number)) === undefined, 10_000, 'the lift clears the row');
    expect((await track(long, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(200);
    await handle.result();
  });

  it('encodes characters that are not safe in ids', () => {
    expect(workflowIds.trackingLockout('s1', 'A/7 #2')).toBe('tracking-lockout/s1/A%2F7%20%232');
  });
});

describe('the lockout holds for every spelling that reaches an order (issue 16, security review)', () => {
  it('a stored "#N" locked through "#N" stays locked through "##N", " # #N" and the store page', async () => {
    const s = await trackingStore(long);
    const number = `#${nextNumber('H')}`;
    await createOrder(long, s.connection, number);
    for (let i = 0; i < 3; i++) expect((await track(long, s.secret, { order: number, contact: '0000' })).statusCode).toBe(422);
    expect((await track(long, s.secret, { order: `#${number}`, contact: SHOPPER.last4 })).statusCode).toBe(429);
    expect((await track(long, s.publishable, { order: ` #${number} `, contact: SHOPPER.last4 })).statusCode).toBe(429);
    const page = await postForm(long, `/s/${s.store.slug}/track`, { order: `#${number}`, contact: SHOPPER.last4 });
    expect(page.statusCode).toBe(429);
    expect(page.body).not.toContain('Mint tea');
  });

  it('wrong tries through "##N" count and lock: guessing cannot go on without limit', async () => {
    const s = await trackingStore(long);
    const number = `#${nextNumber('H')}`;
    await createOrder(long, s.connection, number);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await track(long, s.secret, { order: `#${number}`, contact: String(1000 + i) })).statusCode);
    expect(statuses).toEqual([422, 422, 422, 429, 429]);
    expect((await track(long, s.secret, { order: `#${number}`, contact: SHOPPER.last4 })).statusCode).toBe(429);
    expect((await track(long, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(429);
    const page = await postForm(long, `/s/${s.store.slug}/track`, { order: `##${number}`.slice(1), contact: SHOPPER.last4 });
    expect(page.statusCode).toBe(429);
  });
});
