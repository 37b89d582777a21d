import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { holdLane, releaseLane } from '../db/lanes.js';
import type { ActivityDeps } from './deps.js';

/**
 * Calls beat at every multiple of periodMs of the wall clock (not periodMs after the call), until the
 * returned function is called: every caller in a process beats at the same moments.
 */
export function onClockTicks(periodMs: number, beat: () => void): () => void {
  const nextTick = () => Math.floor(Date.now() / periodMs + 1) * periodMs;
  let due = nextTick();
  let timer: NodeJS.Timeout;
  const wait = () => {
    timer = setTimeout(
      () => {
        beat();
        // The next tick, or a later one if this beat came more than a period late.
        due = Math.max(due + periodMs, nextTick());
        wait();
      },
      Math.max(0, due - Date.now()),
    );
  };
  wait();
  return () => clearTimeout(timer);
}

/**
 * The lane protocol, the one place it is written (db/lanes.ts says why it is safe), for a lane activity
 * (a shard's webhook dispatcher, a store's old webhook lane, a connection's update push):
 *
 * - `hold`: take the lease, so writers wake this run by NOTIFY instead of queuing a Temporal signal;
 * - renew it on shared clock ticks every third of its length, each renewal doubling as the activity's
 *   heartbeat (so the runs of a worker that died time out together and move to a survivor together);
 * - `wait` for a wake-up (a NOTIFY for the lane, `poke`), the poll, or the end of the worker;
 * - `lingerEnd`: give the lease up, then look for work once more (every write that saw the lease has
 *   committed by then); work found → hold it again and go on, none → the run ends;
 * - `close`: stop renewing; on the worker's stop (`ending`) also give the lease up, so writers signal
 *   the workflow meanwhile and the next worker takes over at its first poll;
 * - on the worker's stop (`workerStopping`) a run throws `handOverToNextWorker()` once it has sent what
 *   was in flight: Temporal retries the same activity on the next worker that polls (the activities of
 *   all three allow any number of attempts).
 */
export class LaneLease {
  private wakeWait: () => void = () => {};
  private poked = false;
  /** A NOTIFY for the lane came (work was committed for it) since the last takeWakeUp. */
  private wokenUp = false;
  private readonly stopBeating: () => void;
  private readonly unsubscribe: () => void;
  private readonly stopWatching: () => void;
  /** The worker is stopping (or Temporal cancelled the run): send what is in flight, start nothing new, end. */
  ending = false;

  private constructor(
    private readonly deps: ActivityDeps,
    readonly laneId: string,
    private readonly leaseMs: number,
    heartbeatDetails: () => unknown,
  ) {
    const ctx = Context.current();
    this.unsubscribe = deps.laneWakeups?.subscribe(laneId, () => ((this.wokenUp = true), this.poke())) ?? (() => {});
    this.stopBeating = onClockTicks(Math.round(leaseMs / 3), () => {
      ctx.heartbeat(heartbeatDetails());
      holdLane(deps.orm.em.fork(), laneId, leaseMs).catch(() => undefined);
    });
    const end = () => ((this.ending = true), this.poke());
    const signals = [ctx.cancellationSignal, deps.stopping].filter((s): s is AbortSignal => s !== undefined);
    for (const s of signals) s.addEventListener('abort', end);
    if (signals.some((s) => s.aborted)) this.ending = true;
    this.stopWatching = () => signals.forEach((s) => s.removeEventListener('abort', end));
  }

  /** Takes the lane's lease and starts renewing it; `heartbeatDetails` go with each heartbeat. */
  static async hold(deps: ActivityDeps, laneId: string, leaseMs: number, heartbeatDetails: () => unknown = () => undefined) {
    await holdLane(deps.orm.em.fork(), laneId, leaseMs);
    return new LaneLease(deps, laneId, leaseMs, heartbeatDetails);
  }

  /** Something happened (a wake-up, a send finished): the run's next wait returns at once. */
  poke(): void {
    this.poked = true;
    this.wakeWait();
  }

  /** Waits up to ms for a poke (returns true) unless one came since the last wait; false when the time ran out. */
  async wait(ms: number): Promise<boolean> {
    // Ending (the worker stops) pokes once; after that a run still waits for its in-flight sends to poke:
    // returning at once would spin the loop on resolved promises and starve the very sends it waits for.
    if (!this.poked) {
      await new Promise<void>((woke) => {
        const timer = setTimeout(woke, Math.max(1, ms));
        this.wakeWait = () => (clearTimeout(timer), woke());
      });
      this.wakeWait = () => {};
    }
    const poked = this.poked;
    this.poked = false;
    return poked;
  }

  /** True when a NOTIFY for the lane came since the last call (and clears it): new work was committed. */
  takeWakeUp(): boolean {
    const woken = this.wokenUp;
    this.wokenUp = false;
    return woken;
  }

  /**
   * Gives the lease up, then runs `lookAgain` (which sees every write made while the lane ran): when it
   * finds work, holds the lease again and returns false; returns true when the run may end.
   */
  async lingerEnd(lookAgain: () => Promise<boolean>): Promise<boolean> {
    await releaseLane(this.deps.orm.em.fork(), this.laneId);
    if (!(await lookAgain())) return true;
    await holdLane(this.deps.orm.em.fork(), this.laneId, this.leaseMs);
    return false;
  }

  /** The worker is stopping (not a cancellation by Temporal): the run hands over rather than returning. */
  get workerStopping(): boolean {
    return this.deps.stopping?.aborted ?? false;
  }

  /** Stops renewing; when the run ends because the worker stops, gives the lease up as well. */
  async close(): Promise<void> {
    this.stopBeating();
    this.unsubscribe();
    this.stopWatching();
    if (this.ending) await releaseLane(this.deps.orm.em.fork(), this.laneId).catch(() => undefined);
  }
}

/** The failure type of a lane run cut short by its worker's stop (handOverToNextWorker). */
export const WORKER_STOPPING = 'WorkerStopping';

/**
 * What a lane run throws when its worker stops, once its in-flight sends are recorded and its lease given
 * up: Temporal retries the same activity shortly, on whichever worker polls next (another running one at
 * once, or the replacement at its first poll). A run that returned instead had its workflow schedule the
 * next run, and that workflow task went to the stopping worker's sticky queue, where it waited out the
 * sticky timeout (2 s, temporal/worker.ts) before any worker could take it: a restarted worker's first
 * delivery waited for it (cold-start-worker in npm run bench), and on a rolling deploy every shard of the
 * stopped worker paused that long. A retry needs no workflow task and writes no history event.
 */
export function handOverToNextWorker(): ApplicationFailure {
  return ApplicationFailure.create({
    type: WORKER_STOPPING,
    message: 'the worker stopped: the next worker that polls goes on with this run',
    nextRetryDelay: '100 milliseconds',
    // A deploy, not an error: logged at debug level and left out of the SDK's failure metrics.
    category: ApplicationFailureCategory.BENIGN,
  });
}
