import { describe, expect, it } from 'vitest';
import { EndpointBreakers, failureCounts } from '../../domain/circuit-breaker.js';
import { FairQueue } from '../../domain/delivery-queue.js';

type D = { deliveryId: string; endpointId: string; orderId: string; storeId: string };
const d = (deliveryId: string, storeId: string, endpointId: string, orderId = deliveryId): D => ({
  deliveryId,
  storeId,
  endpointId,
  orderId,
});
const ids = (list: D[]) => list.map((x) => x.deliveryId);

describe('a shard serves its stores round-robin under per-store, per-endpoint and per-shard limits', () => {
  it('a store with a long backlog does not go before another store’s first delivery', () => {
    const q = new FairQueue<D>({ perEndpoint: 100, perStore: 100, total: 3 });
    q.add(Array.from({ length: 10 }, (_, i) => d(`big${i}`, 'big', 'e-big')));
    q.add([d('small0', 'small', 'e-small')]);
    expect(ids(q.take())).toEqual(['big0', 'small0', 'big1']);
  });

  it('at most `total` in flight in the shard; a finished attempt frees a place', () => {
    const q = new FairQueue<D>({ perEndpoint: 4, perStore: 40, total: 2 });
    q.add([d('a', 's1', 'e1'), d('b', 's2', 'e2'), d('c', 's3', 'e3')]);
    const first = q.take();
    expect(first).toHaveLength(2);
    expect(q.take()).toEqual([]);
    q.finished(first[0]!);
    expect(ids(q.take())).toEqual(['c']);
    expect(q.inFlight).toBe(2);
  });

  it('each store keeps its own per-endpoint limit', () => {
    const q = new FairQueue<D>({ perEndpoint: 4, perStore: 40, total: 800 });
    q.add(Array.from({ length: 10 }, (_, i) => d(`h${i}`, 'hanging', 'e-hang')));
    q.add([d('ok', 'healthy', 'e-ok')]);
    const taken = q.take();
    expect(taken.filter((x) => x.storeId === 'hanging')).toHaveLength(4);
    expect(ids(taken)).toContain('ok');
  });
});

describe('an endpoint’s circuit opens after consecutive failures: one attempt per cool-down, never a retry', () => {
  const settings = { failures: 3, coolDownMs: 1000 };

  it('no answer, 5xx and 429 count as failures; other answers do not', () => {
    expect([failureCounts(null, false), failureCounts(503, false), failureCounts(429, false)]).toEqual([true, true, true]);
    expect([failureCounts(400, false), failureCounts(410, false), failureCounts(200, true)]).toEqual([false, false, false]);
  });

  it('closed: the queue’s limits; open: nothing during the cool-down, then one probe; a success closes it', () => {
    const b = new EndpointBreakers(settings);
    expect(b.record('e', true, 0)).toBeNull();
    expect(b.record('e', true, 0)).toBeNull();
    expect(b.cap('e', 0)).toBeUndefined();
    expect(b.record('e', true, 100)).toBe('opened');
    expect(b.isOpen('e')).toBe(true);
    expect(b.cap('e', 500)).toBe(0);
    expect(b.cap('e', 1100)).toBe(1);
    expect(b.record('e', true, 1200)).toBe('probe_failed');
    expect(b.cap('e', 1300)).toBe(0);
    expect(b.record('e', false, 2300)).toBe('closed');
    expect(b.isOpen('e')).toBe(false);
    expect(b.cap('e', 2300)).toBeUndefined();
    // A success while closed, or a failure below the threshold, changes nothing the owner sees.
    expect(b.record('e', false, 2400)).toBeNull();
  });

  it('a circuit an earlier run left open starts open: the first probe waits out the cool-down from its last failure', () => {
    const b = new EndpointBreakers(settings);
    b.restoreOpen('e', 5000);
    expect(b.isOpen('e')).toBe(true);
    expect(b.cap('e', 5500)).toBe(0);
    expect(b.cap('e', 6000)).toBe(1);
    expect(b.record('e', false, 6100)).toBe('closed');
    expect(b.openEndpoints()).toEqual([]);
  });

  it('behind an open circuit the queue hands out nothing, then one at a time; waiting deliveries can be dropped to be settled unsent', () => {
    let now = 0;
    const b = new EndpointBreakers(settings);
    const q = new FairQueue<D>({ perEndpoint: 4, perStore: 40, total: 800 }, (e) => b.cap(e, now));
    q.add(Array.from({ length: 8 }, (_, i) => d(`x${i}`, 's', 'dead')));
    const first = q.take();
    expect(first).toHaveLength(4);
    for (const x of first) {
      b.record('dead', true, now);
      q.finished(x);
    }
    expect(q.take()).toEqual([]);
    now = 1000;
    const probe = q.take();
    expect(ids(probe)).toEqual(['x4']);
    expect(q.take()).toEqual([]);
    expect(ids(q.drop('dead', (x) => x.deliveryId !== 'x5'))).toEqual(['x6', 'x7']);
    expect(q.waiting).toBe(1);
  });
});
