import { expireCode } from '../../services/connections/codes.js';
import { replayUpdates } from '../../services/connections/updates.js';
import type { ConnectCodeActivities, ConnectionPushActivities, UpdatePushOutcome } from '../../workflows/connections/definitions.js';
import type { ActivityDeps } from '../deps.js';
import { pushUpdatesWhileBusy } from './update-push-lane.js';

/** Activities of connected shops: code expiry and the update push. */
export function connectionActivities(deps: ActivityDeps) {
  const { orm } = deps;
  return {
    /** Expires a connect code that was not used in time; false when it was used. */
    async expireConnectCode(codeId: string): Promise<boolean> {
      return expireCode(orm.em.fork(), codeId);
    },
    /** Pushes due updates in batches while new ones keep coming (activities/connections/update-push-lane.ts). */
    async pushDueUpdates(connectionId: string): Promise<UpdatePushOutcome> {
      return pushUpdatesWhileBusy(deps, connectionId);
    },
    /** Marks waiting and failed updates due again (operator replay from the Temporal UI). */
    async replayConnectionUpdates(connectionId: string): Promise<number> {
      return replayUpdates(orm.em.fork(), connectionId);
    },
  } satisfies ConnectCodeActivities & ConnectionPushActivities;
}
