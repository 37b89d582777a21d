import { expireCode } from '../services/connections/codes.js';
import { pushDueUpdates, type PushOutcome } from '../services/connections/push.js';
import { replayUpdates } from '../services/connections/updates.js';
import type { ActivityDeps } from './index.js';

/** Activities of connected shops: code expiry and the update push. */
export function connectionActivities({ orm, config, resolve }: ActivityDeps) {
  return {
    /** Expires a connect code that was not used in time; false when it was used. */
    async expireConnectCode(codeId: string): Promise<boolean> {
      return expireCode(orm.em.fork(), codeId);
    },
    /** Pushes one batch of due updates; see services/connections/push.ts. */
    async pushDueUpdates(connectionId: string): Promise<PushOutcome> {
      return pushDueUpdates(orm.em.fork(), connectionId, {
        secretsKey: config.secretsKey,
        timeoutMs: config.webhookTimeoutMs,
        policy: { allowLoopback: config.allowLoopbackTargets },
        ...(resolve ? { resolve } : {}),
      });
    },
    /** Marks waiting and failed updates due again (operator replay from the Temporal UI). */
    async replayConnectionUpdates(connectionId: string): Promise<number> {
      return replayUpdates(orm.em.fork(), connectionId);
    },
  };
}
