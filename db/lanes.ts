import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, runPrepared } from './prepared.js';
import type { WorkflowHandOff } from '../workflows/hand-off.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import { HAND_OFF_COLUMN_LIST, HAND_OFF_RECORD, handOffRow } from './tables/outbox.js';
import { executeBound } from './bound.js';

// A lane is a long-lived workflow whose activity keeps working while work comes in (a store's webhook
// lane, a connection's push). While the activity runs it holds a lease in `lanes`; writers then wake it
// with a NOTIFY on LANE_CHANNEL (payload: the workflow id) and queue no Temporal signal. Writers read the
// lease FOR SHARE, so an activity that gives the lane up waits for every write that saw it running to
// commit, and then sees that write's work: no wake-up is lost (releaseLane).

/** The channel writers NOTIFY (payload: the lane's workflow id) when they commit work for a running lane. */
export const LANE_CHANNEL = 'lane';

/**
 * SQL (two CTEs, `lane` and `queued`, for a WITH list) that queues the hand-off `?::jsonb` (a one-row
 * HAND_OFF_RECORD array) unless the lane `?` is running; `when` is an SQL condition that must hold for
 * anything to be done. Follow it with LANE_NOTIFY.
 */
export const laneWakeUpCtes = (when: string) => `lane as (
       select active_until > now() as running from lanes where workflow_id = ? and ${when} for share
     ), queued as (
       insert into outbox (${HAND_OFF_COLUMN_LIST})
       select ${HAND_OFF_COLUMN_LIST} from jsonb_to_recordset(?::jsonb) as w(${HAND_OFF_RECORD})
       where ${when} and not exists (select 1 from lane where running)
       returning 1
     )`;
/** The final SELECT after laneWakeUpCtes: the outbox NOTIFY when a row was queued, the lane's NOTIFY (`?`: its workflow id) when `when` holds. */
export const laneNotify = (when: string) => `select pg_notify('${OUTBOX_CHANNEL}', '') from queued
     union all
     select pg_notify('${LANE_CHANNEL}', ?) where ${when}`;

/** Wakes a lane in the caller's transaction: a NOTIFY at commit when it runs, else its signal through the outbox. */
export async function wakeLane(em: EntityManager, handOff: WorkflowHandOff): Promise<void> {
  await executeBound(em, `with ${laneWakeUpCtes('true')} ${laneNotify('true')}`, [
    handOff.workflowId,
    JSON.stringify([handOffRow(handOff)]),
    handOff.workflowId,
  ]);
}

/** Marks the lane running until now + leaseMs (its activity renews this while it works). */
export async function holdLane(em: EntityManager, workflowId: string, leaseMs: number): Promise<void> {
  await runPrepared(em, HOLD, [workflowId, leaseMs / 1000]);
}
const HOLD = prepared(`insert into lanes (workflow_id, active_until) values ($1, now() + make_interval(secs => $2::float8))
  on conflict (workflow_id) do update set active_until = excluded.active_until`);

/**
 * Marks the lane idle. Waits for every write that saw it running to commit, so the caller's next look
 * for work (after this returns) sees all of it; a later write signals the workflow instead.
 */
export async function releaseLane(em: EntityManager, workflowId: string): Promise<void> {
  // runPrepared refuses to run inside a transaction: this update must commit before the caller looks for work.
  await runPrepared(em, RELEASE, [workflowId]);
}
const RELEASE = prepared(`update lanes set active_until = '-infinity' where workflow_id = $1`);
