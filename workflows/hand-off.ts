// Pure: how producers hand work to Temporal through the outbox with names and arguments the compiler
// checks: a workflow as producers and the worker both know it (as defineSignal is to a signal), the
// search attributes, and startWorkflow / signalWithStart, the only makers of a WorkflowHandOff. Each
// feature's contract is its folder's definitions.ts. It imports nothing of this project; no I/O.
import { defineSearchAttributeKey, SearchAttributeType, type SignalDefinition } from '@temporalio/common';

/** Search attributes operators filter on in the Temporal Web UI; business ids only, never secrets. */
export const SEARCH_ATTRIBUTES = {
  StoreId: defineSearchAttributeKey('StoreId', SearchAttributeType.KEYWORD),
  OrderId: defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  ConnectionId: defineSearchAttributeKey('ConnectionId', SearchAttributeType.KEYWORD),
  WebhookEndpointId: defineSearchAttributeKey('WebhookEndpointId', SearchAttributeType.KEYWORD),
} as const;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/**
 * A workflow as producers and the worker both know it, without its code (as defineSignal is to a
 * signal): the name it runs under, which is its export in workflows/index.ts, and its signature, which
 * that export is checked against with `satisfies WorkflowOf<…>`.
 */
export interface WorkflowDefinition<Args extends unknown[] = any[], Result = unknown> {
  readonly type: 'workflow';
  readonly name: string;
  /** Never set: carries the signature for the compiler. */
  readonly signature?: (...args: Args) => Promise<Result>;
}

export const defineWorkflow = <Args extends unknown[], Result = void>(name: string): WorkflowDefinition<Args, Result> => ({
  type: 'workflow',
  name,
});

/** The function type a workflow file exports for its definition. */
export type WorkflowOf<D> = D extends WorkflowDefinition<infer A, infer R> ? (...args: A) => Promise<R> : never;

declare const madeByHelper: unique symbol;

/**
 * A start or signal-with-start of a workflow as the outbox keeps it (db/outbox.ts) until the relay hands
 * it over. Built only by startWorkflow and signalWithStart, so its names and arguments were type-checked.
 */
export interface WorkflowHandOff {
  readonly [madeByHelper]: true;
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: Partial<Record<SearchAttributeName, string>>;
  /** One line shown in the Temporal Web UI. */
  summary?: string;
  /** When set, the relay signals the workflow (starting it first if needed). */
  signal?: { name: string; args: unknown[] };
}

/** Marks fields the helpers below checked as a hand-off. */
const handOff = (fields: Omit<WorkflowHandOff, typeof madeByHelper>) => fields as WorkflowHandOff;

interface HandOffOptions<Args extends unknown[]> {
  /** From workflowIds: deterministic, so the relay's retry never starts a second run. */
  workflowId: string;
  args: Args;
  searchAttributes: Partial<Record<SearchAttributeName, string>>;
  summary?: string;
}

/** A hand-off that starts `workflow` once: a start of a running or finished id is a no-op. */
export function startWorkflow<Args extends unknown[]>(
  workflow: WorkflowDefinition<Args, unknown>,
  options: HandOffOptions<NoInfer<Args>>,
): WorkflowHandOff {
  return handOff({ workflowType: workflow.name, ...options });
}

/** A hand-off that sends `signal` to `workflow`, starting it with `args` first if it is not running. */
export function signalWithStart<Args extends unknown[], SignalArgs extends unknown[]>(
  workflow: WorkflowDefinition<Args, unknown>,
  options: HandOffOptions<NoInfer<Args>> & { signal: SignalDefinition<SignalArgs>; signalArgs: NoInfer<SignalArgs> },
): WorkflowHandOff {
  const { signal, signalArgs, ...rest } = options;
  return handOff({ workflowType: workflow.name, ...rest, signal: { name: signal.name, args: signalArgs } });
}
