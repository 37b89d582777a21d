// The SDK's failure side against the live service: the error envelope as a typed error, and Retry-After honoured
// on real 429 answers (the tracking lockout, whose length config sets, and a key over its per-minute limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreCommerceClient, StoreCommerceError } from '../../sdk/src/index.js';
import { createListeningTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { startInOneRateWindow } from '../helpers/rate-window.js';
import { createOrder, nextNumber, SHOPPER, trackingStore } from '../tracking/fixtures.js';

// Short lockout: 2 wrong contacts lock an order for 2 seconds.
let t: TestApp & { baseUrl: string };
let s: TestStore;
beforeAll(async () => {
  t = await createListeningTestApp({ TRACKING_LOCKOUT_SECONDS: '2', TRACKING_MAX_WRONG_CONTACT: '2' });
  s = await createTestStore(t.orm, { plan: 'paid' });
});
afterAll(() => t.close());

/** A client whose fetch records every status it sees (retries included). */
function recordingClient(apiKey: string, retry: Parameters<typeof createStoreCommerceClient>[0]['retry']) {
  const statuses: number[] = [];
  const client = createStoreCommerceClient({
    baseUrl: `${t.baseUrl}/api/v1`,
    apiKey,
    retry,
    fetch: async (request) => {
      const response = await fetch(request);
      statuses.push(response.status);
      return response;
    },
  });
  return { client, statuses };
}

describe('an error answer is a StoreCommerceError with the envelope typed', () => {
  it('404 not_found carries the request id of the X-Request-Id header', async () => {
    const client = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: s.secret });
    const error = await client.orders.get(crypto.randomUUID()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreCommerceError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', param: undefined, request_id: expect.stringMatching(/^req_/) });
  });

  it('400 invalid_request names the field at fault in param', async () => {
    const client = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: s.secret });
    await expect(client.orders.upsert({ external_id: 'no-total', totals: {} as never })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      param: 'totals.total',
    });
  });

  it('401 unauthorized for a wrong key, never retried', async () => {
    const { client, statuses } = recordingClient(`svc_live_sk_${'0'.repeat(48)}`, { maxRetries: 3 });
    await expect(client.me()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(statuses).toEqual([401]);
  });
});

describe('Retry-After is honoured on 429, with bounded retries', () => {
  async function lockedOrder() {
    const ts = await trackingStore(t);
    const number = nextNumber('SDK');
    await createOrder(t, ts.connection, number);
    const client = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: ts.secret, retry: false });
    for (let i = 0; i < 2; i++)
      await expect(client.tracking.lookup({ order: number, contact: '0000' })).rejects.toMatchObject({ status: 422 });
    return { ts, number };
  }

  it('waits the Retry-After of a locked order and retries until the lockout ends', async () => {
    const { ts, number } = await lockedOrder();
    const { client, statuses } = recordingClient(ts.secret, { maxRetries: 4, maxDelayMs: 5000 });
    const started = Date.now();
    const found = await client.tracking.lookup({ order: number, contact: SHOPPER.last4 });
    expect(found).toBeTruthy();
    expect(statuses[0]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('gives up at once when Retry-After is longer than maxDelayMs, and after maxRetries otherwise', async () => {
    const { ts, number } = await lockedOrder();
    const impatient = recordingClient(ts.secret, { maxRetries: 3, maxDelayMs: 100 });
    const error = await impatient.client.tracking.lookup({ order: number, contact: SHOPPER.last4 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: expect.any(Number) });
    expect((error as StoreCommerceError).retryAfter).toBeGreaterThanOrEqual(1);
    expect(impatient.statuses).toEqual([429]);

    const { ts: other, number: otherNumber } = await lockedOrder();
    const bounded = recordingClient(other.secret, { maxRetries: 1, maxDelayMs: 5000, initialDelayMs: 0 });
    // A wrong contact while locked: 429, then (after the wait) the lockout may have ended and it is a 422 or 429 again.
    const last = await bounded.client.tracking.lookup({ order: otherNumber, contact: '0000' }).catch((e: unknown) => e);
    expect(last).toBeInstanceOf(StoreCommerceError);
    expect(bounded.statuses).toHaveLength(2);
    expect(bounded.statuses[0]).toBe(429);
  });

  it("a key over its plan's per-minute limit gets 429 rate_limited with retryAfter, typed", { timeout: 120_000 }, async () => {
    const free = await createTestStore(t.orm, { plan: 'free' });
    await startInOneRateWindow(t.orm, 20_000);
    const { client, statuses } = recordingClient(free.secret, false);
    const limit = Number(
      (await fetch(`${t.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${free.secret}` } })).headers.get('x-ratelimit-limit'),
    );
    expect(limit).toBe(60);
    for (let i = 1; i < limit; i += 10) await Promise.all(Array.from({ length: Math.min(10, limit - i) }, () => client.me()));
    const error = await client.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreCommerceError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', request_id: expect.stringMatching(/^req_/) });
    const retryAfter = (error as StoreCommerceError).retryAfter!;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(statuses.filter((x) => x === 429)).toEqual([429]);
  });
});

describe('a retried write is sent again whole', () => {
  it('a POST refused with 429 over the key limit waits for the next minute and then creates the order', { timeout: 150_000 }, async () => {
    const free = await createTestStore(t.orm, { plan: 'free' });
    // Start 12 s before a rate-limit minute ends (the database's clock, the one the counters use): the wait stays short.
    const [row] = await t.orm.em
      .fork()
      .execute<{ left: string }[]>(`select 60000 - (extract(epoch from clock_timestamp()) * 1000)::bigint % 60000 as left`);
    await new Promise((r) => setTimeout(r, (Number(row!.left) - 12_000 + 60_000) % 60_000));
    const exhaust = createStoreCommerceClient({ baseUrl: `${t.baseUrl}/api/v1`, apiKey: free.secret, retry: false });
    for (let i = 0; i < 60; i += 10) await Promise.all(Array.from({ length: 10 }, () => exhaust.me().catch(() => undefined)));
    const { client, statuses } = recordingClient(free.secret, { maxRetries: 1, maxDelayMs: 30_000 });
    const result = await client.orders.upsert({ external_id: 'after-the-wait', totals: { total: 3.25 } });
    expect(statuses).toEqual([429, 201]);
    expect(result).toMatchObject({ action: 'created', order: { external_id: 'after-the-wait', totals: { total: 3.25 } } });
  });
});
