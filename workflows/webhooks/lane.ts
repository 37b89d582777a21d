import { proxyActivities } from '@temporalio/workflow';
import { type LaneOutcome, type WebhookLaneActivities, type WebhookLaneInput, type webhooksWorkflows } from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';
import { sendWhileWoken } from './deliveries-loop.js';

// One activity per wake sends every delivery the store has waiting (claimed before its one POST, so a
// retried run never sends one twice), and keeps going while new events come in (they wake it through
// PostgreSQL, not Temporal): Temporal's fixed cost is paid per batch of deliveries, not per order.
const { sendLaneDeliveries } = proxyActivities<WebhookLaneActivities>({
  // A run ends by itself after at most 5 minutes plus its last attempts (WEBHOOK_TIMEOUT_MS, ≤ 60 s).
  startToCloseTimeout: '15 minutes',
  // The run heartbeats every few seconds: a worker that died is noticed after this, and the run retried.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  summary: 'send the store’s waiting webhook deliveries',
});

/** A lane with nothing to send for this long ends; the next order's wake-up starts a new run. */
const IDLE_END_MS = 15 * 60_000;

function describe(outcome: LaneOutcome | null, runs: number): string {
  if (!outcome) return 'Waiting for deliveries.';
  const failed = outcome.attempts.filter((a) => !a.result.startsWith('delivered')).length;
  return `${runs} sending run(s) in this workflow run; the last made ${outcome.attempts.length} attempt(s), ${failed} failed, ${outcome.cancelled} cancelled (endpoint deleted). Each run's result lists its deliveries by id, order and endpoint.`;
}

/**
 * The old webhook lane of one store, kept registered so lanes open at the upgrade finish; new orders go
 * to their shard’s dispatcher (webhook-dispatch.ts). Woken by deliveriesWaiting (signal-with-start from the outbox relay)
 * when the lane is idle, it runs sendLaneDeliveries until nothing waits. Continues as new to keep its
 * history short; ends after a long idle time.
 */
export async function webhookLaneWorkflow(input: WebhookLaneInput): Promise<void> {
  await sendWhileWoken(input, (i) => sendLaneDeliveries(i.storeId), IDLE_END_MS, describe);
}
webhookLaneWorkflow satisfies WorkflowOf<typeof webhooksWorkflows.webhookLane>;
