import { liftLockoutNow, settleLockout } from '../../services/tracking/lockout.js';
import type { TrackingLockoutActivities, TrackingLockoutInput, TrackingLockoutState } from '../../workflows/tracking/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** Activities of the tracking lockout: the workflow's only way to change the lockout's database row. */
export function trackingActivities({ orm }: Pick<ActivityDeps, 'orm'>) {
  return {
    /** Clears the lockout row if its time is over and returns what remains (null: nothing, the workflow may end). */
    async settleTrackingLockout(input: TrackingLockoutInput): Promise<TrackingLockoutState | null> {
      return settleLockout(orm.em.fork(), input);
    },

    /** Clears the lockout row now, whatever its state (an operator lifted the lockout). */
    async liftTrackingLockout(input: TrackingLockoutInput): Promise<boolean> {
      return liftLockoutNow(orm.em.fork(), input);
    },
  } satisfies TrackingLockoutActivities;
}
