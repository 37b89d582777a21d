import { describe, expect, it } from 'vitest';
import { DeliveryQueue, type QueuedDelivery } from '../../domain/delivery-queue.js';

const d = (deliveryId: string, endpointId: string, orderId: string): QueuedDelivery => ({ deliveryId, endpointId, orderId });
const ids = (list: QueuedDelivery[]) => list.map((x) => x.deliveryId);

describe('one endpoint gets an order’s events one at a time, in order', () => {
  it('the next event of an order waits until the previous one to the same endpoint is finished', () => {
    const q = new DeliveryQueue({ perEndpoint: 4, perStore: 40 });
    q.add([d('a1', 'e1', 'o1'), d('a2', 'e1', 'o1'), d('a3', 'e1', 'o1')]);
    const first = q.take();
    expect(ids(first)).toEqual(['a1']);
    expect(q.take()).toEqual([]);
    q.finished(first[0]!);
    expect(ids(q.take())).toEqual(['a2']);
  });

  it('other endpoints and other orders do not wait for it', () => {
    const q = new DeliveryQueue({ perEndpoint: 4, perStore: 40 });
    q.add([d('a1', 'e1', 'o1'), d('a2', 'e1', 'o1'), d('b1', 'e2', 'o1'), d('c1', 'e1', 'o2')]);
    expect(ids(q.take()).sort()).toEqual(['a1', 'b1', 'c1']);
  });

  it('an event added later for a busy order goes after the one in flight', () => {
    const q = new DeliveryQueue({ perEndpoint: 4, perStore: 40 });
    q.add([d('a1', 'e1', 'o1')]);
    const [a1] = q.take();
    q.add([d('a2', 'e1', 'o1')]);
    expect(q.take()).toEqual([]);
    q.finished(a1!);
    expect(ids(q.take())).toEqual(['a2']);
  });
});

describe('limits', () => {
  it('no more than perEndpoint attempts to one endpoint, and the rest of the store is not held back by it', () => {
    const q = new DeliveryQueue({ perEndpoint: 2, perStore: 40 });
    q.add([d('s1', 'slow', 'o1'), d('s2', 'slow', 'o2'), d('s3', 'slow', 'o3'), d('f1', 'fast', 'o1')]);
    expect(ids(q.take()).sort()).toEqual(['f1', 's1', 's2']);
    expect(q.inFlight).toBe(3);
    expect(q.waiting).toBe(1);
  });

  it('no more than perStore attempts in all', () => {
    const q = new DeliveryQueue({ perEndpoint: 10, perStore: 3 });
    q.add(Array.from({ length: 6 }, (_, i) => d(`x${i}`, `e${i % 2}`, `o${i}`)));
    expect(q.take()).toHaveLength(3);
    expect(q.take()).toHaveLength(0);
  });

  it('take(max) hands out at most max', () => {
    const q = new DeliveryQueue({ perEndpoint: 10, perStore: 10 });
    q.add(Array.from({ length: 5 }, (_, i) => d(`x${i}`, 'e', `o${i}`)));
    expect(q.take(2)).toHaveLength(2);
    expect(q.waiting).toBe(3);
  });
});

describe('bookkeeping', () => {
  it('a delivery added twice (by id) is queued once', () => {
    const q = new DeliveryQueue({ perEndpoint: 4, perStore: 40 });
    expect(q.add([d('a1', 'e1', 'o1')])).toBe(1);
    expect(q.add([d('a1', 'e1', 'o1'), d('a2', 'e1', 'o2')])).toBe(1);
    expect(q.waiting).toBe(2);
  });

  it('finishing what was never handed out changes nothing', () => {
    const q = new DeliveryQueue({ perEndpoint: 4, perStore: 40 });
    q.add([d('a1', 'e1', 'o1')]);
    q.finished(d('zz', 'e9', 'o9'));
    expect(q.inFlight).toBe(0);
    expect(q.waiting).toBe(1);
  });

  it('drains completely: every delivery is handed out exactly once', () => {
    const q = new DeliveryQueue({ perEndpoint: 3, perStore: 7 });
    const all = Array.from({ length: 200 }, (_, i) => d(`x${i}`, `e${i % 5}`, `o${i % 17}`));
    q.add(all);
    const seen: string[] = [];
    while (q.waiting > 0 || q.inFlight > 0) {
      const batch = q.take();
      seen.push(...ids(batch));
      for (const x of batch) q.finished(x);
    }
    expect(seen.sort()).toEqual(ids(all).sort());
  });
});
