import { expireCheckoutSession } from '../services/checkout/expire.js';
import type { ActivityDeps } from './index.js';

/** Activities of checkout sessions. */
export function checkoutActivities({ orm }: ActivityDeps) {
  return {
    /** Marks the session expired if it is still open; true when this call expired it (idempotent). */
    async expireCheckoutSession(sessionId: string): Promise<boolean> {
      return expireCheckoutSession(orm.em.fork(), sessionId);
    },
  };
}
