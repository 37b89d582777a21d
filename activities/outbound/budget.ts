import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';

/** The failure type an outbound activity throws when its store already has all its sends in flight. */
export const STORE_OUTBOUND_BUSY = 'StoreOutboundBusy';

/**
 * Each store's share of the outbound worker: at most `perStore` outbound activities (new-order pushes,
 * chat messages, webhook replays) of one store run at once in this worker. One more does not wait in
 * its slot: it fails at once with a retryable StoreOutboundBusy, so Temporal tries it again after a short,
 * jittered delay while the slot serves another store. Per worker process: N workers give a store N × perStore.
 */
export class StoreOutboundBudget {
  private readonly inFlight = new Map<string, number>();
  constructor(readonly perStore: number) {}

  /** Runs `send` on one of the store's turns, or throws the retryable StoreOutboundBusy when it has none free. */
  async run<T>(storeId: string, send: () => Promise<T>): Promise<T> {
    const taken = this.inFlight.get(storeId) ?? 0;
    if (taken >= this.perStore)
      throw ApplicationFailure.create({
        type: STORE_OUTBOUND_BUSY,
        message: `the store already has ${taken} outbound sends in flight (its budget): tried again shortly`,
        // Jittered so that a store's waiting sends do not all come back at the same moment.
        nextRetryDelay: 1000 + Math.floor(Math.random() * 2000),
        // Expected under load, not an error: logged at debug level and left out of the failure metrics.
        category: ApplicationFailureCategory.BENIGN,
      });
    this.inFlight.set(storeId, taken + 1);
    try {
      return await send();
    } finally {
      const left = (this.inFlight.get(storeId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(storeId);
      else this.inFlight.set(storeId, left);
    }
  }

  /** Sends in flight now, per store (for tests and metrics). */
  inFlightOf(storeId: string): number {
    return this.inFlight.get(storeId) ?? 0;
  }
}

/**
 * A per-target circuit breaker (a push device, a chat endpoint): a target that gave no answer (timed out,
 * refused, unreachable) is skipped for `coolDownMs`, so a dead device costs its timeout once per cool-down,
 * not once per order. Any answer closes it. Per worker process; forgotten at restart.
 */
export class TargetCircuit {
  private readonly openUntil = new Map<string, number>();
  constructor(readonly coolDownMs = 60_000) {}

  /** True while the target is cooling down: do not send to it. */
  isOpen(target: string, now = Date.now()): boolean {
    const until = this.openUntil.get(target);
    if (until === undefined) return false;
    if (until > now) return true;
    this.openUntil.delete(target);
    return false;
  }

  /** Records an attempt: no answer opens the circuit for the cool-down; an answer (any status) closes it. */
  record(target: string, answered: boolean, now = Date.now()): void {
    if (answered) this.openUntil.delete(target);
    else this.openUntil.set(target, now + this.coolDownMs);
    // Bounded: a worker that saw many dead targets forgets the oldest first.
    if (this.openUntil.size > 10_000) this.openUntil.delete(this.openUntil.keys().next().value!);
  }
}
