import { proxyActivities } from '@temporalio/workflow';
import { type LaneOutcome, type WebhookDispatchActivities, type WebhookDispatchInput, type webhooksWorkflows } from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';
import { sendWhileWoken } from './deliveries-loop.js';

// One activity serves every store of the shard while they have work (woken through PostgreSQL, not
// Temporal), so an order in a busy shard costs Temporal nothing; each delivery is claimed before its
// one POST, so a retried run never sends one twice.
const { sendShardDeliveries } = proxyActivities<WebhookDispatchActivities>({
  // A run ends by itself after at most 5 minutes plus its idle end and last attempts (each ≤ 60 s).
  startToCloseTimeout: '20 minutes',
  // The run heartbeats every 3⅓ s (activities/lane-lease.ts): a worker that died is noticed after this,
  // and the run retried on another worker, so a shard waits at most about 11 s.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  summary: 'send the shard’s waiting webhook deliveries',
});

/** A dispatcher with nothing to send for this long ends; the next order's wake-up starts a new run. */
const IDLE_END_MS = 60 * 60_000;

function describe(outcome: LaneOutcome | null, runs: number): string {
  if (!outcome) return 'Waiting for deliveries.';
  return `${runs} sending run(s) in this workflow run; the last made ${outcome.made ?? outcome.attempts.length} attempt(s), settled ${outcome.circuitOpen ?? 0} unsent behind an open circuit, cancelled ${outcome.cancelled} (endpoint deleted). Each delivery row names the run and activity that sent it.`;
}

/**
 * The webhook dispatcher of one shard of stores (webhook-dispatch/<shard>-of-<n>): woken by
 * deliveriesWaiting (signal-with-start from the outbox relay, or the worker at its start) when idle, it
 * runs sendShardDeliveries until nothing waits. Continues as new to keep its history short.
 */
export async function webhookDispatchWorkflow(input: WebhookDispatchInput): Promise<void> {
  await sendWhileWoken(input, (i) => sendShardDeliveries(i), IDLE_END_MS, describe);
}
webhookDispatchWorkflow satisfies WorkflowOf<typeof webhooksWorkflows.webhookDispatch>;
