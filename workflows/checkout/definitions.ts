// Pure: the contract of the expiry of checkout sessions between producers (services, through the outbox), the
// workflows and the activities: the workflows' names on the wire, inputs and results, signals and queries,
// and the interface of the activities they call. It imports nothing of this project outside workflows/.
// Nothing here may do I/O.
import { defineWorkflow } from '../hand-off.js';

export interface CheckoutExpiryInput {
  storeId: string;
  /** The bucket's end (ISO 8601 UTC): every session of the store still open with expires_at up to it expires then. */
  endsAt: string;
}

export interface CheckoutExpiryActivities {
  /** Expires the open sessions of one store and bucket; the count it expired (idempotent). */
  expireCheckoutBucket: (bucket: CheckoutExpiryInput) => Promise<number>;
}

/** The checkout workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const checkoutWorkflows = {
  checkoutExpiry: defineWorkflow<[CheckoutExpiryInput], { expired: number }>('checkoutExpiryWorkflow'),
};
