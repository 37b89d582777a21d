import { defineEntity, p } from '@mikro-orm/postgresql';

export const OUTBOX_ACTIONS = ['start', 'signal_with_start'] as const;

/** One hand-off to Temporal, written in the same transaction as the change that causes it. */
const OutboxMessageSchema = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    action: p.enum(OUTBOX_ACTIONS),
    workflowType: p.text(),
    workflowId: p.text(),
    args: p.json<unknown[]>(),
    signalName: p.text().nullable(),
    signalArgs: p.json<unknown[]>().nullable(),
    searchAttributes: p.json<Record<string, string>>(),
    summary: p.text().nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    doneAt: p.datetime().nullable(),
  },
});

export class OutboxMessage extends OutboxMessageSchema.class {}
OutboxMessageSchema.setClass(OutboxMessage);
