import { z } from '../../../contract/zod.js';
import { listDeliveries, replayDelivery } from '../../../services/webhooks/deliveries.js';
import { workflowIds } from '../../../workflows/catalog.js';
import { idOption } from '../args.js';
import { defineCommand } from '../command.js';
import { CommandError } from '../errors.js';
import { storeExists } from '../../../services/stores.js';

const webhooksDeliveries = defineCommand({
  name: 'webhooks deliveries',
  usage: '--store ID [--failed] [--limit N]',
  summary:
    'Recent webhook deliveries of a store, newest first: endpoint, event, outcome, status code or error, duration. --failed shows failed ones only.',
  options: { store: 'string', failed: 'boolean', limit: 'string' },
  input: z.object({
    store: idOption('store'),
    failed: z.boolean().default(false),
    limit: z.coerce.number({ error: 'must be a number from 1 to 500' }).int().min(1).max(500).default(50),
  }),
  async run({ em }, input) {
    if (!(await storeExists(em, input.store))) throw new CommandError(`no store ${input.store}`);
    const deliveries = await listDeliveries(em, input.store, { failedOnly: input.failed, limit: input.limit });
    const text = deliveries.length
      ? deliveries
          .map((d) =>
            [
              `${d.created_at}  ${d.status.padEnd(9)} ${d.event_type.padEnd(24)} ${d.response_status ?? '-'}  ${d.duration_ms ?? '-'} ms  ${d.url}`,
              `    delivery ${d.id}${d.replay_of ? ` (replay of ${d.replay_of})` : ''}  order ${d.order_id}`,
              `    ${d.replay_of ? `workflow ${workflowIds.webhookReplay(d.event_id, d.endpoint_id, d.id)}` : d.run_id ? `sent by workflow ${d.workflow_id} run ${d.run_id}, activity ${d.activity_id}` : `workflow ${workflowIds.storeWebhookDispatch(input.store)} (not sent yet)`}`,
              ...(d.error ? [`    error: ${d.error}`] : []),
            ].join('\n'),
          )
          .join('\n')
      : `No ${input.failed ? 'failed ' : ''}deliveries for store ${input.store}.`;
    return { json: { deliveries }, text };
  },
});

const webhooksReplay = defineCommand({
  name: 'webhooks replay',
  usage: '--delivery ID',
  summary:
    'Sends a delivery again as a new attempt (a new X-Service-Delivery id), through the outbox to Temporal; the endpoint must still exist.',
  options: { delivery: 'string' },
  input: z.object({ delivery: idOption('delivery') }),
  async run({ em }, input) {
    const replay = await replayDelivery(em, input.delivery);
    if (!replay) throw new CommandError(`no delivery ${input.delivery}, or its endpoint was deleted`);
    return {
      json: { delivery: replay },
      text: `Replay ${replay.id} of delivery ${replay.replay_of} queued; see it with: webhooks deliveries --store <store id>.`,
    };
  },
});

export const webhookCommands = [webhooksDeliveries, webhooksReplay];
