// A wrong contact takes the same time whether it was close to the right one or far from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TRACKING_FAILURE_FLOOR_MS } from '../../services/tracking/lookup.js';
import { createOrder, nextNumber, SHOPPER, track, trackingStore, type TrackingStore } from './fixtures.js';

let t: TestApp;
let s: TrackingStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await trackingStore(t);
});
afterAll(() => t.close());

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function timed(query: Record<string, string>): Promise<number> {
  const started = performance.now();
  const res = await track(t, s.secret, query);
  const took = performance.now() - started;
  expect(res.statusCode).toBe(422);
  return took;
}

describe('answers take the same time whether the contact was close or not', () => {
  it(
    'the median time of a close wrong contact (3 of 4 digits) and a far one differ by less than 30 ms (a shared, noisy machine)',
    { timeout: 60_000 },
    async () => {
      const close = `${SHOPPER.last4.slice(0, 3)}${(Number(SHOPPER.last4[3]) + 1) % 10}`;
      const far = '1062';
      // 15 orders × 4 tries (2 close, 2 far, alternating): 30 of each, below the lockout of 5 per order.
      const numbers: string[] = [];
      for (let i = 0; i < 15; i++) {
        const number = nextNumber('W');
        await createOrder(t, s.connection, number);
        numbers.push(number);
      }
      const warmUp = nextNumber('W');
      await createOrder(t, s.connection, warmUp);
      for (let i = 0; i < 2; i++) await timed({ order: warmUp, contact: i ? close : far }); // not measured
      const closeTimes: number[] = [];
      const farTimes: number[] = [];
      for (const number of numbers) {
        for (let round = 0; round < 2; round++) {
          closeTimes.push(await timed({ order: number, contact: close }));
          farTimes.push(await timed({ order: number, contact: far }));
        }
      }
      const difference = Math.abs(median(closeTimes) - median(farTimes));
      expect(closeTimes).toHaveLength(30);
      expect(difference, `close ${median(closeTimes).toFixed(1)} ms, far ${median(farTimes).toFixed(1)} ms`).toBeLessThan(30);
      // Every failed answer waits for the same floor, so neither can be faster than it.
      expect(Math.min(...closeTimes, ...farTimes)).toBeGreaterThanOrEqual(TRACKING_FAILURE_FLOOR_MS - 1);
    },
  );
});
