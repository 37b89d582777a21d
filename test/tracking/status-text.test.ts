// status_text (the order's tracking) and shipping_status_text (GET /tracking) say the shipping status in
// words once the order ships, and are null before that and for a cancelled order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createOrder, nextNumber, track, trackingStore, type TrackingStore } from './fixtures.js';

let t: TestApp;
let s: TrackingStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await trackingStore(t);
});
afterAll(() => t.close());

const patch = (id: string, status: string) =>
  t.request({ method: 'PATCH', url: `/api/v1/orders/${id}`, headers: bearer(s.secret), payload: { status } });

describe('the shipping status in words', () => {
  it('follows the status: null, null, Shipped, Out for delivery, Delivered; null when cancelled', async () => {
    const seen: (string | null)[] = [];
    /** Moves a new order through the statuses, noting the text after each step (the order's and the tracking's agree). */
    async function walk(statuses: (string | null)[]) {
      const number = nextNumber('ST');
      const id = await createOrder(t, s.secret, number);
      for (const status of statuses) {
        if (status) expect((await patch(id, status)).statusCode).toBe(200);
        const order = (await t.request({ method: 'GET', url: `/api/v1/orders/${id}`, headers: bearer(s.secret) })).json().order;
        const tracked = (await track(t, s.secret, { order: number })).json().order;
        expect(order.tracking.status_text).toBe(tracked.shipping_status_text);
        seen.push(order.tracking.status_text);
      }
    }
    await walk([null, 'confirmed', 'shipped', 'out_for_delivery', 'completed']);
    await walk(['cancelled']);
    expect(seen).toEqual([null, null, 'Shipped', 'Out for delivery', 'Delivered', null]);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(JSON.stringify(doc.components.schemas)).toContain('The shipping status in words once the order ships');
  });
});
