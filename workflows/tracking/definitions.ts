// Pure: the contract of the tracking lockout between producers (services, through the outbox), the workflows
// and the activities: the workflows' names on the wire, inputs and results, signals and queries, and the
// interface of the activities they call. It imports nothing of this project outside workflows/. Nothing here
// may do I/O.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../hand-off.js';

export interface TrackingLockoutInput {
  storeId: string;
  /** The order number without a leading '#' (or the order id when it has none). */
  orderKey: string;
  /** TRACKING_LOCKOUT_SECONDS of the API that wrote the wrong try: the lockout and the counting window. */
  lockoutSeconds: number;
}

/** The database's state of one lockout, as the API or the settling activity saw it. */
export interface TrackingLockoutState {
  wrongCount: number;
  /** Set once the count reached TRACKING_MAX_WRONG_CONTACT: lookups answer 429 until then. */
  lockedUntil: string | null;
  /** When the row is due to be cleared: lockedUntil, or the end of the counting window. */
  expiresAt: string;
}

/** A wrong contact was tried (sent through the outbox after the counter row committed). Named 'wrongContact' on the wire. */
export const wrongContactTried = defineSignal<[TrackingLockoutState]>('wrongContact');

/** Operator action (Temporal UI): end the lockout and forget the wrong tries now. */
export const liftLockout = defineSignal('liftLockout');

/** What the workflow believes now (the database stays the truth). */
export const trackingLockoutState = defineQuery<TrackingLockoutState & { lifted: boolean }>('lockoutState');

export interface TrackingLockoutActivities {
  /** Clears the lockout row if its time is over and returns what remains (null: nothing, the workflow may end). */
  settleTrackingLockout: (input: TrackingLockoutInput) => Promise<TrackingLockoutState | null>;
  /** Clears the lockout row now, whatever its state (an operator lifted the lockout). */
  liftTrackingLockout: (input: TrackingLockoutInput) => Promise<boolean>;
}

/** The tracking workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const trackingWorkflows = {
  trackingLockout: defineWorkflow<[input: TrackingLockoutInput, carried?: TrackingLockoutState | null]>('trackingLockoutWorkflow'),
};
