import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { checkoutPlaced, type CheckoutExpiryInput } from './definitions.js';

const { expireCheckoutSession } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Owns one checkout session's life: it ends when the cart places its order (signal checkoutPlaced), or
 * after the TTL it marks the session expired (only if still open). The cart page also checks the
 * database's expires_at on every use, so expiry never depends on this timer firing on time.
 */
export async function checkoutExpiryWorkflow(input: CheckoutExpiryInput): Promise<{ outcome: 'placed' | 'expired' | 'already closed' }> {
  let placed = false;
  setHandler(checkoutPlaced, () => {
    placed = true;
  });
  if (await condition(() => placed, Math.max(1, input.ttlMs))) return { outcome: 'placed' };
  const expired = await expireCheckoutSession(input.sessionId);
  return { outcome: expired ? 'expired' : 'already closed' };
}
