/** What the queue needs to know of a delivery. */
export interface QueuedDelivery {
  deliveryId: string;
  endpointId: string;
  orderId: string;
}

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

  constructor(private readonly limits: QueueLimits) {}

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
      for (const [orderId, line] of orders) {
        if (out.length >= max || this.inFlightCount >= this.limits.perStore) return out;
        if (busy.size >= this.limits.perEndpoint) break;
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

  /** Deliveries added and not yet handed out. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Deliveries handed out and not yet finished. */
  get inFlight(): number {
    return this.inFlightCount;
  }
}
