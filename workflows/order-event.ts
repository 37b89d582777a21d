import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { OrderEventInput } from './definitions.js';

const { recordOrderEventDispatched } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Hands one committed order event to its consumers (webhooks and connection updates build on this). */
export async function orderEventWorkflow(input: OrderEventInput): Promise<void> {
  await recordOrderEventDispatched(input.eventId);
}
