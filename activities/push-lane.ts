import { Context } from '@temporalio/activity';
import { openingKeys, targetPolicy } from '../config/env.js';
import { holdLane, releaseLane } from '../db/lanes.js';
import { pushDueUpdates } from '../services/connections/push.js';
import { workflowIds, type PushOutcome } from '../workflows/definitions.js';
import type { ActivityDeps } from './deps.js';

/** The tuning of a push run (per connection). */
export const PUSH_LANE = {
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
 * when nothing is due for PUSH_LANE.lingerMs; its outcome says when the next waiting update is due.
 */
export async function pushWhileBusy(deps: ActivityDeps, connectionId: string): Promise<PushOutcome> {
  const laneId = workflowIds.connectionPush(connectionId);
  const em = deps.orm.em.fork();
  const ctx = Context.current();
  const opts = {
    secretsKey: openingKeys(deps.config),
    timeoutMs: deps.config.webhookTimeoutMs,
    policy: targetPolicy(deps.config),
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  };
  // Set by a wake-up while a batch is being pushed; the loop clears it before each batch.
  let poked: boolean;
  let wakeLoop = () => {};
  await holdLane(em, laneId, PUSH_LANE.leaseMs);
  const unsubscribe = deps.laneWakeups?.subscribe(laneId, () => ((poked = true), wakeLoop())) ?? (() => {});
  const renew = setInterval(() => {
    ctx.heartbeat();
    holdLane(em.fork(), laneId, PUSH_LANE.leaseMs).catch(() => undefined);
  }, PUSH_LANE.leaseMs / 3);
  const started = Date.now();
  let idleSince = started;
  const total = { sent: 0, acknowledged: 0 };
  const push = async () => {
    const o = await pushDueUpdates(em, connectionId, opts);
    total.sent += o.sent;
    total.acknowledged += o.acknowledged;
    if (deps.metrics && o.sent > 0) {
      deps.metrics.pushes.inc({ outcome: 'acknowledged' }, o.acknowledged);
      deps.metrics.pushes.inc({ outcome: 'not_acknowledged' }, o.sent - o.acknowledged);
    }
    return o;
  };
  // The workflow reads nextPushInMs and stopped of the last batch, and the run's totals.
  const done = (last: PushOutcome): PushOutcome => ({ ...last, ...total });
  try {
    for (;;) {
      poked = false;
      const outcome = await push();
      if (outcome.stopped) return done(outcome);
      if (outcome.sent > 0) idleSince = Date.now();
      if (Date.now() - started >= PUSH_LANE.maxRunMs) return done(outcome);
      if (outcome.more) continue;
      const lingerLeft = PUSH_LANE.lingerMs - (Date.now() - idleSince);
      if (lingerLeft <= 0 && !poked) {
        await releaseLane(em, laneId);
        // Anything committed while the lane still ran is visible now; a later update signals the workflow.
        const last = await push();
        if (last.sent === 0 || last.stopped) return done(last);
        await holdLane(em, laneId, PUSH_LANE.leaseMs);
        idleSince = Date.now();
        continue;
      }
      if (!poked) {
        const wait = Math.max(1, Math.min(lingerLeft, outcome.nextPushInMs ?? Infinity, PUSH_LANE.pollMs));
        await new Promise<void>((woke) => {
          const timer = setTimeout(woke, wait);
          wakeLoop = () => (clearTimeout(timer), woke());
        });
        wakeLoop = () => {};
      }
    }
  } finally {
    clearInterval(renew);
    unsubscribe();
  }
}
