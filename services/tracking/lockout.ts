import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { enqueueHandOffs } from '../../db/outbox.js';
import { iso } from '../../domain/dates.js';
import { signalWithStart } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import { wrongContactTried, type TrackingLockoutInput, type TrackingLockoutState } from '../../workflows/tracking/definitions.js';
import type { TrackingLockoutRow } from '../../db/tables/tracking-lockouts.js';

export interface LockoutRule {
  /** TRACKING_MAX_WRONG_CONTACT: the wrong try that reaches it starts the lockout. */
  maxWrong: number;
  /** TRACKING_LOCKOUT_SECONDS: how long the lockout lasts, and how long wrong tries are remembered. */
  lockoutSeconds: number;
}

/** expires_at: when the row stops counting (the lockout's end, or the last wrong try's window end). */
type StateRow = Pick<TrackingLockoutRow, 'wrong_count' | 'locked_until'> & { expires_at: Date | string };

const toState = (row: StateRow): TrackingLockoutState => ({
  wrongCount: row.wrong_count,
  lockedUntil: row.locked_until ? iso(row.locked_until) : null,
  expiresAt: iso(row.expires_at),
});

// A row is over when its lockout has ended, or when it only counts and its last wrong try left the window.
const OVER = `(l.locked_until <= now() or (l.locked_until is null and l.last_wrong_at <= now() - make_interval(secs => ?)))`;

// One statement, so concurrent wrong tries each count exactly once and the one reaching the maximum
// sets locked_until itself: enforcement never waits for the workflow. A running lockout is never extended.
const WRONG_TRY = `
insert into tracking_lockouts as l (store_id, order_key, wrong_count, locked_until, last_wrong_at)
values (?, ?, 1, case when 1 >= ? then now() + make_interval(secs => ?) end, now())
on conflict (store_id, order_key) do update set
  wrong_count = case when ${OVER} then 1 else l.wrong_count + 1 end,
  locked_until = case
    when l.locked_until > now() then l.locked_until
    when (case when ${OVER} then 1 else l.wrong_count + 1 end) >= ? then now() + make_interval(secs => ?)
  end,
  last_wrong_at = now()
returning wrong_count, locked_until, coalesce(locked_until, last_wrong_at + make_interval(secs => ?)) as expires_at`;

/**
 * Counts one wrong contact for an order number, atomically, and signals its lockout workflow through
 * the outbox in the same transaction (the lookup never waits on Temporal). Returns the new state.
 */
export async function recordWrongTry(
  em: EntityManager,
  storeId: string,
  orderKey: string,
  rule: LockoutRule,
): Promise<TrackingLockoutState> {
  return writeTransaction(em, async (tx) => {
    const s = rule.lockoutSeconds;
    const [row] = await executeBound<StateRow>(tx, WRONG_TRY, [storeId, orderKey, rule.maxWrong, s, s, s, rule.maxWrong, s, s]);
    const state = toState(row!);
    const input: TrackingLockoutInput = { storeId, orderKey, lockoutSeconds: s };
    await enqueueHandOffs(tx, [
      signalWithStart(workflows.trackingLockout, {
        workflowId: workflowIds.trackingLockout(storeId, orderKey),
        args: [input],
        signal: wrongContactTried,
        signalArgs: [state],
        searchAttributes: { StoreId: storeId },
        summary: `wrong tracking contacts for order ${orderKey}`,
      }),
    ]);
    return state;
  });
}

/**
 * Clears the row if it is over (lockout ended, or no wrong try within the window) and returns what
 * remains, or null when nothing does: the workflow keeps watching only what the database still holds.
 */
export async function settleLockout(em: EntityManager, input: TrackingLockoutInput): Promise<TrackingLockoutState | null> {
  const s = input.lockoutSeconds;
  await executeBound(em, `delete from tracking_lockouts l where store_id = ? and order_key = ? and ${OVER}`, [
    input.storeId,
    input.orderKey,
    s,
  ]);
  const [row] = await executeBound<StateRow>(
    em,
    `select wrong_count, locked_until, coalesce(locked_until, last_wrong_at + make_interval(secs => ?)) as expires_at
     from tracking_lockouts where store_id = ? and order_key = ?`,
    [s, input.storeId, input.orderKey],
  );
  return row ? toState(row) : null;
}

/** Ends the lockout and forgets the wrong tries of an order number at once; true when there was something to clear. */
export async function liftLockoutNow(em: EntityManager, input: Pick<TrackingLockoutInput, 'storeId' | 'orderKey'>): Promise<boolean> {
  const rows = await executeBound<Pick<TrackingLockoutRow, 'order_key'>>(
    em,
    `delete from tracking_lockouts where store_id = ? and order_key = ? returning order_key`,
    [input.storeId, input.orderKey],
  );
  return rows.length > 0;
}
