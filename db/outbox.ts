import type { EntityManager } from '@mikro-orm/postgresql';
import { currentTraceparent } from '../observability/trace-context.js';
import type { WorkflowHandOff } from '../workflows/hand-off.js';
import { executeBound } from './bound.js';

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
  const values: unknown[] = [];
  const traceparent = currentTraceparent();
  const rows = handOffs.map((h) => {
    values.push(
      h.signal ? 'signal_with_start' : 'start',
      h.workflowType,
      h.workflowId,
      JSON.stringify(h.args),
      h.signal?.name ?? null,
      h.signal ? JSON.stringify(h.signal.args) : null,
      JSON.stringify(h.searchAttributes),
      h.summary ?? null,
      traceparent,
    );
    return '(?, ?, ?, ?::jsonb, ?, ?::jsonb, ?::jsonb, ?, ?)';
  });
  await executeBound(em, `insert into outbox (${OUTBOX_COLUMNS}) values ${rows.join(', ')}`, values);
  await executeBound(em, `select pg_notify('${OUTBOX_CHANNEL}', '')`);
}

/** The outbox columns, and their types as a `jsonb_to_recordset` record of outboxRow objects. */
export const OUTBOX_COLUMNS = 'action, workflow_type, workflow_id, args, signal_name, signal_args, search_attributes, summary, traceparent';
export const OUTBOX_RECORD = `action text, workflow_type text, workflow_id text, args jsonb, signal_name text, signal_args jsonb,
  search_attributes jsonb, summary text, traceparent text`;

/** One hand-off as an outbox row (with the active trace context), for a statement that inserts rows from JSON (OUTBOX_RECORD) along with other writes. */
export function outboxRow(h: WorkflowHandOff) {
  return {
    action: h.signal ? 'signal_with_start' : 'start',
    workflow_type: h.workflowType,
    workflow_id: h.workflowId,
    args: h.args,
    signal_name: h.signal?.name ?? null,
    signal_args: h.signal ? h.signal.args : null,
    search_attributes: h.searchAttributes,
    summary: h.summary ?? null,
    // The writing request's trace (null when tracing is off): the relay's hand-off joins it.
    traceparent: currentTraceparent(),
  };
}
