import { z } from '../../../contract/zod.js';
import { listOutbox, OUTBOX_DEAD_AFTER_FAILURES, retryOutbox } from '../../../services/outbox.js';
import { defineCommand } from '../command.js';
import { CommandError } from '../errors.js';

const outboxList = defineCommand({
  name: 'outbox list',
  usage: '[--dead] [--limit N]',
  summary: `Hand-offs to Temporal not yet handed over, oldest first: workflow, signal, tries, last error. --dead shows only those the relay gave up on (refused ${OUTBOX_DEAD_AFTER_FAILURES} times; Temporal being unreachable never counts).`,
  options: { dead: 'boolean', limit: 'string' },
  input: z.object({
    dead: z.boolean().default(false),
    limit: z.coerce.number({ error: 'must be a number from 1 to 500' }).int().min(1).max(500).default(50),
  }),
  async run({ em }, input) {
    const handoffs = await listOutbox(em, { deadOnly: input.dead, limit: input.limit });
    const text = handoffs.length
      ? handoffs
          .map((h) =>
            [
              `${h.id}  ${h.dead_at ? `DEAD since ${h.dead_at}` : `waiting, next try ${h.next_attempt_at}`}  ${h.action} ${h.workflow_type}${h.signal_name ? ` signal ${h.signal_name}` : ''}`,
              `    workflow ${h.workflow_id}${h.summary ? ` (${h.summary})` : ''}`,
              `    written ${h.created_at}, ${h.attempts} tries, ${h.failures} refused${h.last_error ? `; last error: ${h.last_error}` : ''}`,
            ].join('\n'),
          )
          .join('\n')
      : input.dead
        ? 'No dead hand-offs.'
        : 'Nothing waits in the outbox.';
    return { json: { handoffs }, text };
  },
});

const outboxRetry = defineCommand({
  name: 'outbox retry',
  usage: '--id ID | --all-dead',
  summary:
    'Hands a waiting or dead row (--id), or every dead one (--all-dead), to Temporal again now, its tries counted afresh. A row already handed over is never sent twice.',
  options: { id: 'string', 'all-dead': 'boolean' },
  input: z
    .object({
      id: z
        .string()
        .regex(/^[1-9]\d{0,17}$/, 'must be an outbox row id (a number, as outbox list shows)')
        .optional(),
      'all-dead': z.boolean().optional(),
    })
    .refine((o) => (o.id === undefined) !== (o['all-dead'] !== true), 'must name one row (--id ID) or every dead one (--all-dead)'),
  async run({ em }, input) {
    const ids = await retryOutbox(em, input.id !== undefined ? { id: input.id } : { allDead: true });
    if (input.id !== undefined && ids.length === 0)
      throw new CommandError(`no outbox row ${input.id} waiting or dead (unknown, or already handed over)`);
    return {
      json: { retried: ids.length, ids },
      text: ids.length ? `${ids.length} hand-off(s) queued again now: ${ids.join(', ')}.` : 'No dead hand-offs to retry.',
    };
  },
});

export const outboxCommands = [outboxList, outboxRetry];
