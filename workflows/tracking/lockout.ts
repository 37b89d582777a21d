import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  liftLockout,
  trackingLockoutState,
  wrongContactTried,
  type TrackingLockoutActivities,
  type TrackingLockoutInput,
  type TrackingLockoutState,
  type trackingWorkflows,
} from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';

const { settleTrackingLockout, liftTrackingLockout } = proxyActivities<TrackingLockoutActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});

/** Keeps the later of two views of the row: signals may arrive out of order (the relay sends a batch at once). */
function merge(held: TrackingLockoutState | null, seen: TrackingLockoutState): TrackingLockoutState {
  if (!held) return seen;
  const lockedUntil =
    [held.lockedUntil, seen.lockedUntil]
      .filter((v): v is string => v !== null)
      .sort()
      .at(-1) ?? null;
  return {
    wrongCount: Math.max(held.wrongCount, seen.wrongCount),
    lockedUntil,
    expiresAt: [held.expiresAt, seen.expiresAt].sort().at(-1)!,
  };
}

function describe(state: TrackingLockoutState | null): string {
  if (!state) return 'Waiting for the state of the lockout.';
  return state.lockedUntil
    ? `Locked after ${state.wrongCount} wrong contacts until ${state.lockedUntil}. Send the liftLockout signal to lift it now.`
    : `${state.wrongCount} wrong contact(s); forgotten at ${state.expiresAt} unless more come.`;
}

/**
 * The wrong-contact lockout of one order number, visible to operators. The API writes the row and
 * enforces it; this workflow ends it: at expiresAt its timer settles the row (cleared when over), and
 * the liftLockout signal clears it at once. It ends when the database holds nothing more for it.
 */
export async function trackingLockoutWorkflow(input: TrackingLockoutInput, carried: TrackingLockoutState | null = null): Promise<void> {
  let state = carried;
  let changed = false;
  let lifted = false;
  setHandler(wrongContactTried, (seen) => void ((state = merge(state, seen)), (changed = true)), {
    description: 'A wrong contact was tried.',
  });
  setHandler(liftLockout, () => void (lifted = true), { description: 'Lift the lockout now and forget the wrong tries.' });
  setHandler(trackingLockoutState, () => ({ ...(state ?? { wrongCount: 0, lockedUntil: null, expiresAt: '' }), lifted }), {
    description: 'The lockout as this workflow sees it.',
  });

  for (;;) {
    setCurrentDetails(describe(state));
    changed = false;
    // Until the first signal is in (signalWithStart delivers it with the start), wait for it.
    const wait = state ? Math.max(200, Date.parse(state.expiresAt) - Date.now()) : input.lockoutSeconds * 1000;
    const woke = await condition(() => lifted || changed, wait, { summary: state?.lockedUntil ? 'lockout timer' : 'counting window' });
    if (lifted) {
      await liftTrackingLockout(input);
      setCurrentDetails('Lifted by an operator.');
      break;
    }
    if (woke) continue;
    const remaining = await settleTrackingLockout(input);
    if (!remaining) break;
    state = remaining;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof trackingLockoutWorkflow>(input, state);
    }
  }
  await condition(allHandlersFinished);
}
trackingLockoutWorkflow satisfies WorkflowOf<typeof trackingWorkflows.trackingLockout>;
