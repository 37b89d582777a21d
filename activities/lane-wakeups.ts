import type { PgNotifications } from '../db/notifications.js';
import { LANE_CHANNEL } from '../db/lanes.js';

/**
 * Tells running lane activities "work for your lane was committed" (db/lanes.ts), from the process's one
 * LISTEN connection (db/notifications.ts, shared with the outbox relay). Best effort: a lost
 * notification only delays a lane until its next poll.
 */
export class LaneWakeups {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly unsubscribe: () => void;

  constructor(notifications: PgNotifications) {
    this.unsubscribe = notifications.subscribe(LANE_CHANNEL, (laneId) => {
      for (const wake of this.listeners.get(laneId) ?? []) wake();
    });
  }

  /** Stops passing notifications on (the shared connection stays with its owner). */
  stop(): void {
    this.unsubscribe();
  }

  /** Calls `wake` on every notification for the lane (its workflow id) until the returned function is called. */
  subscribe(laneId: string, wake: () => void): () => void {
    const set = this.listeners.get(laneId) ?? new Set();
    set.add(wake);
    this.listeners.set(laneId, set);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.listeners.delete(laneId);
    };
  }
}
