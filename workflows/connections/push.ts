import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import {
  replayUpdates,
  updatesQueued,
  type ConnectionPushActivities,
  type ConnectionPushInput,
  type connectionsWorkflows,
} from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';
import { outboundActivities } from '../outbound/queue.js';

const PUSH_OPTIONS: ActivityOptions = {
  // A push run keeps going while updates come in (at most a minute, plus its last push); it heartbeats,
  // so a worker that died is noticed after the heartbeat timeout.
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  // No limit on attempts: a run cut short by its worker's stop is retried on the next worker
  // (handOverToNextWorker), and any number of deploys may fall within one run. A run that keeps failing
  // (PostgreSQL out of reach) is retried once a minute, its last failure on the pending activity in the UI.
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
};
// On the outbound queue (a plugin's receiver is a tenant's), or where a run made before it scheduled them.
const activities = () => outboundActivities<ConnectionPushActivities>({ legacy: PUSH_OPTIONS, outbound: PUSH_OPTIONS });

/** Wakes at least this often even without a signal, in case a wake-up was missed. */
const HEARTBEAT_MS = 15 * 60 * 1000;

/**
 * One per connection, long-lived: woken by new updates when its push is idle (a running push is woken
 * through PostgreSQL, db/lanes.ts), it pushes due updates in batches; whatever the
 * plugin does not acknowledge is retried with back-off (the database keeps each update's schedule).
 * Ends when the connection is disconnected; continues as new to keep its history short.
 */
export async function connectionPushWorkflow(input: ConnectionPushInput): Promise<void> {
  let wake = true;
  let replay = false;
  setHandler(updatesQueued, () => {
    wake = true;
  });
  setHandler(replayUpdates, () => {
    replay = wake = true;
  });
  let nextMs: number | null = null;
  for (;;) {
    if (!wake) await condition(() => wake, nextMs ?? HEARTBEAT_MS);
    wake = false;
    if (replay) {
      replay = false;
      await activities().replayConnectionUpdates(input.connectionId);
    }
    const outcome = await activities().pushDueUpdates(input.connectionId);
    if (outcome.stopped === 'disconnected') return;
    if (outcome.more) wake = true;
    nextMs = outcome.nextPushInMs;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof connectionPushWorkflow>(input);
    }
  }
}
connectionPushWorkflow satisfies WorkflowOf<typeof connectionsWorkflows.connectionPush>;
