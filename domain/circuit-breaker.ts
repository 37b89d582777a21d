/** When an endpoint's circuit opens and how long it stays shut between probes. */
export interface BreakerSettings {
  /** Consecutive failed attempts (no answer, or a 5xx or 429) that open the circuit. */
  failures: number;
  /** After a failure while open, this long without any attempt; then one attempt (the probe) may go. */
  coolDownMs: number;
}

/** What an attempt's result changed for its endpoint's circuit (EndpointBreakers.record). */
export type CircuitChange = 'opened' | 'probe_failed' | 'closed';

interface EndpointState {
  failures: number;
  lastFailureAt: number;
}

/** An attempt's result as the breaker counts it: a failure costs the receiver's time (no answer, 5xx, 429). */
export function failureCounts(status: number | null, ok: boolean): boolean {
  if (ok) return false;
  return status === null || status >= 500 || status === 429;
}

/**
 * Per-endpoint circuit breakers. Closed: the queue's own limits. Open (after `failures` consecutive
 * failures): nothing in flight during the cool-down after the last failure, then one attempt at a time
 * (half-open); a success closes it. Attempts are never retried: a delivery waiting behind an open
 * circuit keeps its one attempt for later (or is settled unsent by its owner, see docs/webhooks.md).
 * Pure: time is passed in.
 */
export class EndpointBreakers {
  private readonly states = new Map<string, EndpointState>();

  constructor(private readonly settings: BreakerSettings) {}

  /**
   * Records one attempt's result, and says what it changed for the endpoint's circuit: `opened` (this
   * failure opened it), `probe_failed` (a failure while open: another cool-down), `closed` (a success while
   * open), or null (nothing an owner would see). The dispatcher keeps those three on the endpoint's row.
   */
  record(endpointId: string, failed: boolean, now: number): CircuitChange | null {
    const wasOpen = this.isOpen(endpointId);
    if (!failed) {
      this.states.delete(endpointId);
      return wasOpen ? 'closed' : null;
    }
    const s = this.states.get(endpointId) ?? { failures: 0, lastFailureAt: now };
    s.failures++;
    s.lastFailureAt = now;
    this.states.set(endpointId, s);
    if (wasOpen) return 'probe_failed';
    return s.failures === this.settings.failures ? 'opened' : null;
  }

  /** Starts with the endpoint's circuit open, as an earlier run left it (its last failed attempt at `lastFailureAt`). */
  restoreOpen(endpointId: string, lastFailureAt: number): void {
    this.states.set(endpointId, { failures: this.settings.failures, lastFailureAt });
  }

  /** True while the endpoint's circuit is open. */
  isOpen(endpointId: string): boolean {
    return (this.states.get(endpointId)?.failures ?? 0) >= this.settings.failures;
  }

  /** The most attempts the endpoint may have in flight now: undefined (closed), 1 (probe) or 0 (cooling down). */
  cap(endpointId: string, now: number): number | undefined {
    const s = this.states.get(endpointId);
    if (!s || s.failures < this.settings.failures) return undefined;
    return now - s.lastFailureAt >= this.settings.coolDownMs ? 1 : 0;
  }

  /** The endpoints whose circuit is open. */
  openEndpoints(): string[] {
    return [...this.states].filter(([, s]) => s.failures >= this.settings.failures).map(([id]) => id);
  }
}
