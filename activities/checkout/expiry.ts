import { expireCheckoutBucket } from '../../services/checkout/expire.js';
import type { CheckoutExpiryActivities, CheckoutExpiryInput } from '../../workflows/checkout/definitions.js';
import type { ActivityDeps } from '../deps.js';

/** Activities of checkout sessions. */
export function checkoutActivities({ orm }: ActivityDeps) {
  return {
    /** Expires the open sessions of one store and bucket; the count it expired (idempotent). */
    async expireCheckoutBucket(bucket: CheckoutExpiryInput): Promise<number> {
      return expireCheckoutBucket(orm.em.fork(), bucket);
    },
  } satisfies CheckoutExpiryActivities;
}
