import type { Client } from '@temporalio/client';
import { deliveriesWaiting, workflowIds, workflows } from '../workflows/definitions.js';

/**
 * Signals (starting when needed) the webhook dispatcher of every shard, so each looks for deliveries
 * once: events and pending deliveries that waited in PostgreSQL while no worker ran are sent without
 * waiting for the next order of their shard.
 */
export async function ensureWebhookDispatchers(client: Client, taskQueue: string, shards: number): Promise<void> {
  await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      client.workflow.signalWithStart(workflows.webhookDispatch.name, {
        workflowId: workflowIds.webhookDispatch(shard, shards),
        taskQueue,
        args: [{ shard, shards }],
        signal: deliveriesWaiting,
        signalArgs: [],
        staticSummary: `webhook deliveries of shard ${shard} of ${shards}`,
      }),
    ),
  );
}
