import { proxyActivities, sleep } from '@temporalio/workflow';
import type { CheckoutExpiryActivities, CheckoutExpiryInput, checkoutWorkflows } from './definitions.js';
import type { WorkflowOf } from '../hand-off.js';

const { expireCheckoutBucket } = proxyActivities<CheckoutExpiryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Expires one bucket of a store's checkout sessions: sleeps until the bucket's end, then marks every
 * session of the store still open whose expires_at is up to then as expired. Placed sessions are not
 * open, so they never expire. One workflow per store and bucket (not per session) keeps Temporal's
 * cost per session near nothing; the cart also checks expires_at on every use, so a late timer never
 * lets an expired session through.
 */
export async function checkoutExpiryWorkflow(input: CheckoutExpiryInput): Promise<{ expired: number }> {
  await sleep(Math.max(1, Date.parse(input.endsAt) - Date.now()));
  return { expired: await expireCheckoutBucket(input) };
}
checkoutExpiryWorkflow satisfies WorkflowOf<typeof checkoutWorkflows.checkoutExpiry>;
