/** What the queue needs to know of a delivery. */
export interface QueuedDelivery {
  deliveryId: string;
  endpointId: string;
  orderId: string;
}

/** Per-endpoint override of the limit (a circuit breaker's): undefined keeps perEndpoint. */
export type EndpointCap = (endpointId: string) => number | undefined;

export interface QueueLimits {
  /** Attempts in flight to one endpoint at once: a slow endpoint holds at most this many. */
  perEndpoint: number;
  /** Attempts in flight for the whole store (its lane) at once. */
  perStore: number;
}

/**
 * A store's waiting deliveries, handed out under two rules: the deliveries of one endpoint and one
 * order go one at a time in the order they were added (so an endpoint sees an order's events in order),
 * and no more than the limits are in flight per endpoint and per store. Pure: no I/O.
 */
export class DeliveryQueue<T extends QueuedDelivery> {
  /** endpoint → (order → deliveries not yet handed out, oldest first); Maps keep insertion order. */
  private readonly lines = new Map<string, Map<string, T[]>>();
  /** endpoint → orders with one delivery in flight. */
  private readonly busy = new Map<string, Set<string>>();
  private readonly seen = new Set<string>();
  private waitingCount = 0;
  private inFlightCount = 0;

  constructor(
    private readonly limits: QueueLimits,
    private readonly endpointCap: EndpointCap = () => undefined,
  ) {}

  /** Adds deliveries in their send order; one already added (by id) is ignored. Returns how many were new. */
  add(deliveries: Iterable<T>): number {
    let added = 0;
    for (const d of deliveries) {
      if (this.seen.has(d.deliveryId)) continue;
      this.seen.add(d.deliveryId);
      const orders = this.lines.get(d.endpointId) ?? new Map<string, T[]>();
      this.lines.set(d.endpointId, orders);
      const line = orders.get(d.orderId);
      if (line) line.push(d);
      else orders.set(d.orderId, [d]);
      added++;
    }
    this.waitingCount += added;
    return added;
  }

  /** Hands out every delivery that may go now (up to `max`); each must come back through finished(). */
  take(max = Infinity): T[] {
    const out: T[] = [];
    for (const [endpointId, orders] of this.lines) {
      const busy = this.busy.get(endpointId) ?? new Set<string>();
      const cap = Math.min(this.limits.perEndpoint, this.endpointCap(endpointId) ?? Infinity);
      for (const [orderId, line] of orders) {
        if (out.length >= max || this.inFlightCount >= this.limits.perStore) return out;
        if (busy.size >= cap) break;
        if (busy.has(orderId)) continue;
        const next = line.shift()!;
        if (line.length === 0) orders.delete(orderId);
        busy.add(orderId);
        this.busy.set(endpointId, busy);
        this.inFlightCount++;
        this.waitingCount--;
        out.push(next);
      }
      if (orders.size === 0) this.lines.delete(endpointId);
    }
    return out;
  }

  /** The attempt of a delivery handed out by take() is over (sent, failed or not claimed): its order's next may go. */
  finished(d: T): void {
    const busy = this.busy.get(d.endpointId);
    if (!busy?.delete(d.orderId)) return;
    if (busy.size === 0) this.busy.delete(d.endpointId);
    this.inFlightCount--;
  }

  /** Removes and returns the waiting deliveries of `endpointId` that `expired` picks (they are never handed out). */
  drop(endpointId: string, expired: (d: T) => boolean): T[] {
    const orders = this.lines.get(endpointId);
    if (!orders) return [];
    const out: T[] = [];
    for (const [orderId, line] of orders) {
      const kept = line.filter((d) => !expired(d));
      if (kept.length === line.length) continue;
      out.push(...line.filter(expired));
      if (kept.length) orders.set(orderId, kept);
      else orders.delete(orderId);
    }
    if (orders.size === 0) this.lines.delete(endpointId);
    this.waitingCount -= out.length;
    return out;
  }

  /** The endpoints that have deliveries waiting. */
  endpointsWaiting(): IterableIterator<string> {
    return this.lines.keys();
  }

  /** Deliveries added and not yet handed out. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Deliveries handed out and not yet finished. */
  get inFlight(): number {
    return this.inFlightCount;
  }
}

/**
 * The deliveries of many stores (a shard), handed out round-robin across stores, one at a time per
 * store per turn, so a store with much waiting (or many slow endpoints) cannot take the others' turns;
 * each store keeps its own DeliveryQueue rules, and at most `total` are in flight in all. Pure: no I/O.
 */
export class FairQueue<T extends QueuedDelivery & { storeId: string }> {
  private readonly stores = new Map<string, DeliveryQueue<T>>();
  private inFlightCount = 0;

  constructor(
    private readonly limits: QueueLimits & { total: number },
    private readonly endpointCap: EndpointCap = () => undefined,
  ) {}

  /** Adds deliveries in their send order (see DeliveryQueue.add). */
  add(deliveries: Iterable<T>): number {
    let added = 0;
    for (const d of deliveries) {
      let q = this.stores.get(d.storeId);
      if (!q) this.stores.set(d.storeId, (q = new DeliveryQueue<T>(this.limits, this.endpointCap)));
      added += q.add([d]);
    }
    return added;
  }

  /** Hands out what may go now, up to `max`, one per store per turn; each must come back through finished(). */
  take(max = Infinity): T[] {
    const out: T[] = [];
    let open = [...this.stores.values()];
    while (open.length && out.length < max && this.inFlightCount < this.limits.total) {
      const next: DeliveryQueue<T>[] = [];
      for (const q of open) {
        if (out.length >= max || this.inFlightCount >= this.limits.total) break;
        const [d] = q.take(1);
        if (!d) continue;
        out.push(d);
        this.inFlightCount++;
        next.push(q);
      }
      open = next;
    }
    // Stores come back to the end of the turn order once served (Maps keep insertion order).
    for (const d of out) {
      const q = this.stores.get(d.storeId)!;
      this.stores.delete(d.storeId);
      this.stores.set(d.storeId, q);
    }
    return out;
  }

  /** See DeliveryQueue.finished. */
  finished(d: T): void {
    const q = this.stores.get(d.storeId);
    if (!q) return;
    const before = q.inFlight;
    q.finished(d);
    if (q.inFlight < before) this.inFlightCount--;
    if (q.inFlight === 0 && q.waiting === 0) this.stores.delete(d.storeId);
  }

  /** Removes the waiting deliveries of `endpointId` that `expired` picks, in every store. */
  drop(endpointId: string, expired: (d: T) => boolean): T[] {
    return [...this.stores.values()].flatMap((q) => q.drop(endpointId, expired));
  }

  /** The endpoints that have deliveries waiting. */
  endpointsWaiting(): Set<string> {
    return new Set([...this.stores.values()].flatMap((q) => [...q.endpointsWaiting()]));
  }

  get waiting(): number {
    let n = 0;
    for (const q of this.stores.values()) n += q.waiting;
    return n;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }
}
