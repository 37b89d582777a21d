import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowHandOff } from '../workflows/hand-off.js';
import { executeBound } from './bound.js';
import { HAND_OFF_COLUMN_LIST, HAND_OFF_RECORD, handOffRow } from './tables/outbox.js';

// Hand-offs are built by startWorkflow and signalWithStart (workflows/hand-off.ts), which check the
// workflow's and the signal's arguments against their definitions; this module only stores them.

/** The outbox's channel: the relay wakes on it right after the writing transaction commits. */
export const OUTBOX_CHANNEL = 'outbox';

/**
 * Queues hand-offs to Temporal inside the caller's transaction: they exist if and only if the change
 * commits. One INSERT for any number of rows, plus a NOTIFY that PostgreSQL delivers at commit.
 */
export async function enqueueHandOffs(em: EntityManager, handOffs: WorkflowHandOff[]): Promise<void> {
  if (handOffs.length === 0) return;
  await executeBound(
    em,
    `insert into outbox (${HAND_OFF_COLUMN_LIST}) select ${HAND_OFF_COLUMN_LIST} from jsonb_to_recordset(?::jsonb) as w(${HAND_OFF_RECORD})`,
    [JSON.stringify(handOffs.map(handOffRow))],
  );
  await executeBound(em, `select pg_notify('${OUTBOX_CHANNEL}', '')`);
}
