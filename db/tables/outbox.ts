import { currentTraceparent } from '../../observability/trace-context.js';
import type { SearchAttributeName, WorkflowHandOff } from '../../workflows/hand-off.js';
import { bigint, integer, jsonb, oneOf, recordsetColumns, text, timestamptz, table, type RowOf } from './columns.js';

/**
 * The outbox table, column for column as the migrations leave it (test/db/tables.test.ts holds the two
 * together): hand-offs to Temporal written in the changing transaction, moved by temporal/outbox-relay.ts.
 */
export const OUTBOX = table('outbox', {
  id: bigint().defaulted(),
  action: oneOf(['start', 'signal_with_start']),
  workflow_type: text(),
  workflow_id: text(),
  args: jsonb<unknown[]>(),
  signal_name: text().nullable(),
  signal_args: jsonb<unknown[]>().nullable(),
  search_attributes: jsonb<Partial<Record<SearchAttributeName, string>>>(),
  summary: text().nullable(),
  /** Every try, Temporal unreachable included (sets the back-off). */
  attempts: integer().defaulted(),
  last_error: text().nullable(),
  created_at: timestamptz().defaulted(),
  next_attempt_at: timestamptz().defaulted(),
  /** Set when the relay handed it over; the purge deletes it some days later. */
  done_at: timestamptz().nullable(),
  /** Tries Temporal refused for a reason of the row's own (they make it dead at the relay's bound). */
  failures: integer().defaulted(),
  /** Set when the relay gave up on it: it waits for `outbox retry`. */
  dead_at: timestamptz().nullable(),
  traceparent: text().nullable(),
});

/** An outbox row as PostgreSQL returns it (id, a bigint, as text). */
export type OutboxRow = RowOf<typeof OUTBOX>;

/** The columns a writer fills; the rest are the relay's bookkeeping, with defaults. */
export const HAND_OFF_COLUMNS = [
  'action',
  'workflow_type',
  'workflow_id',
  'args',
  'signal_name',
  'signal_args',
  'search_attributes',
  'summary',
  'traceparent',
] as const;

/** An outbox row as a writer hands it in: one hand-off, before the relay's bookkeeping. */
export type HandOffRow = Pick<OutboxRow, (typeof HAND_OFF_COLUMNS)[number]>;

/** `action, workflow_type, …`: the column list of `insert into outbox (…) select … from jsonb_to_recordset(…)`. */
export const HAND_OFF_COLUMN_LIST = HAND_OFF_COLUMNS.join(', ');

/** `action text, workflow_type text, …`: the record of `jsonb_to_recordset(?::jsonb) as w(…)` reading HandOffRow objects. */
export const HAND_OFF_RECORD = recordsetColumns(OUTBOX, HAND_OFF_COLUMNS);

/**
 * One hand-off as the outbox row that queues it, with the active trace context; JSON.stringify an array
 * of them for a `jsonb_to_recordset(?::jsonb) as w(HAND_OFF_RECORD)` insert (one bound value, any number of rows).
 */
export function handOffRow(h: WorkflowHandOff): HandOffRow {
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
