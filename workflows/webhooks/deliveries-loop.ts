import { allHandlersFinished, condition, continueAsNew, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { deliveriesWaiting, type LaneOutcome } from './definitions.js';

/**
 * The loop of a webhook-sending workflow (a shard's dispatcher, a store's old lane): woken by
 * deliveriesWaiting, it runs `send` until nothing waits (a run that says `more` is followed by the next
 * at once), ends after `idleEndMs` without a wake-up, and continues as new with `input` to keep its
 * history short. Both workflows' histories are the same commands as before this loop was shared.
 */
export async function sendWhileWoken<I>(
  input: I,
  send: (input: I) => Promise<LaneOutcome>,
  idleEndMs: number,
  describe: (last: LaneOutcome | null, runs: number) => string,
): Promise<void> {
  let wake = true;
  setHandler(deliveriesWaiting, () => void (wake = true), { description: 'Deliveries are waiting: send them.' });
  let runs = 0;
  let last: LaneOutcome | null = null;
  for (;;) {
    setCurrentDetails(describe(last, runs));
    if (!(await condition(() => wake, idleEndMs))) break;
    wake = false;
    last = await send(input);
    runs++;
    if (last.more) wake = true;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew(input);
    }
  }
  await condition(allHandlersFinished);
}
