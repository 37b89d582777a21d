import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { CheckoutExpiryInput } from '../../workflows/checkout/definitions.js';

/**
 * Marks every still-open session of the store with expires_at up to the bucket's end as expired, in one
 * UPDATE, and forgets the bucket and any earlier one of the store; a used (ordered) or already expired
 * session is left as it is. Returns how many it expired; running it again expires nothing more.
 */
export async function expireCheckoutBucket(em: EntityManager, bucket: CheckoutExpiryInput): Promise<number> {
  const [row] = await executeBound<{ n: number }>(
    em,
    `with expired as (
       update checkout_sessions set status = 'expired' where store_id = ? and status = 'open' and expires_at <= ?::timestamptz returning 1
     ), forgotten as (
       -- Earlier buckets too (a run an operator terminated leaves its row): no new session can fall in them.
       delete from checkout_expiry_buckets where store_id = ? and ends_at <= ?::timestamptz
     )
     select count(*)::int as n from expired`,
    [bucket.storeId, bucket.endsAt, bucket.storeId, bucket.endsAt],
  );
  return row?.n ?? 0;
}
