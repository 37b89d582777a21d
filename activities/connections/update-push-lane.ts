import { openingKeys, targetPolicy } from '../../config/env.js';
import { pushUpdateBatch } from '../../services/connections/push.js';
import { LaneLease, handOverToNextWorker } from '../lane-lease.js';
import { workflowIds } from '../../workflows/catalog.js';
import { type UpdatePushOutcome } from '../../workflows/connections/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** The tuning of an update push run (per connection: updates to its plugin, not the owner's Web Push). */
export const UPDATE_PUSH_LANE = {
  /** With nothing due for this long, the run releases the lane and ends. */
  lingerMs: 2000,
  /** A run ends after this long even while busy, so its retries and the workflow's history stay short. */
  maxRunMs: 60_000,
  /** Looks for due updates at least this often, in case a notification was lost. */
  pollMs: 1000,
  /** The lane counts as running for this long after each renewal (renewed every third of it). */
  leaseMs: 10_000,
};

/**
 * Pushes the connection's due updates in batches and keeps doing so while new ones come in (they wake
 * it by NOTIFY, not through Temporal), so a busy shop's updates cost no Temporal round trip each. Ends
 * when nothing is due for UPDATE_PUSH_LANE.lingerMs; its outcome says when the next waiting update is due.
 * The lane protocol (lease, wake-ups, renewal, linger) is LaneLease's.
 */
export async function pushUpdatesWhileBusy(deps: ActivityDeps, connectionId: string): Promise<UpdatePushOutcome> {
  const em = deps.orm.em.fork();
  const opts = {
    secretsKey: openingKeys(deps.config),
    timeoutMs: deps.config.webhookTimeoutMs,
    policy: targetPolicy(deps.config),
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  };
  const lease = await LaneLease.hold(deps, workflowIds.connectionPush(connectionId), UPDATE_PUSH_LANE.leaseMs);
  const started = Date.now();
  let idleSince = started;
  const total = { sent: 0, acknowledged: 0 };
  const push = async () => {
    const o = await pushUpdateBatch(em, connectionId, opts);
    total.sent += o.sent;
    total.acknowledged += o.acknowledged;
    if (deps.metrics && o.sent > 0) {
      deps.metrics.pushes.inc({ outcome: 'acknowledged' }, o.acknowledged);
      deps.metrics.pushes.inc({ outcome: 'not_acknowledged' }, o.sent - o.acknowledged);
    }
    return o;
  };
  // The workflow reads nextPushInMs and stopped of the last batch, and the run's totals.
  const done = (last: UpdatePushOutcome): UpdatePushOutcome => ({ ...last, ...total });
  try {
    for (;;) {
      lease.takeWakeUp(); // wake-ups before this batch are served by it
      const outcome = await push();
      if (outcome.stopped) return done(outcome);
      if (outcome.sent > 0) idleSince = Date.now();
      // The worker stopping hands the run over to a retry of itself, which the next worker takes at its
      // first poll (LaneLease, handOverToNextWorker); at its time limit the workflow schedules the next run.
      if (lease.ending || Date.now() - started >= UPDATE_PUSH_LANE.maxRunMs) {
        if (lease.workerStopping) throw handOverToNextWorker();
        return done(outcome);
      }
      if (outcome.more) continue;
      const lingerLeft = UPDATE_PUSH_LANE.lingerMs - (Date.now() - idleSince);
      if (lingerLeft <= 0 && !lease.takeWakeUp()) {
        // Anything committed while the lane still ran is pushed by this look; a later update signals the workflow.
        let last = outcome;
        const end = await lease.lingerEnd(async () => {
          last = await push();
          return last.sent > 0 && !last.stopped;
        });
        if (end) return done(last);
        idleSince = Date.now();
        continue;
      }
      await lease.wait(Math.min(lingerLeft, outcome.nextPushInMs ?? Infinity, UPDATE_PUSH_LANE.pollMs));
    }
  } finally {
    await lease.close();
  }
}
