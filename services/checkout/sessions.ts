import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../contract/principal.js';
import { ApiError } from '../../contract/errors.js';
import { cartPageUrl } from '../../contract/urls.js';
import type { CheckoutSessionRequest } from '../../contract/schemas/checkout.js';
import type { CartLine } from '../../domain/cart.js';
import { newCheckoutToken } from '../../domain/checkout-token.js';
import { iso } from '../../domain/dates.js';
import { OUTBOX_CHANNEL } from '../../db/outbox.js';
import { HAND_OFF_COLUMN_LIST, HAND_OFF_RECORD, handOffRow } from '../../db/tables/outbox.js';
import { prepared, runPrepared } from '../../db/prepared.js';
import { expiryBucketSeconds } from '../../domain/checkout-expiry.js';
import { startWorkflow } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import { callerStore } from '../catalog/read.js';
import { priceLines } from './cart.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';

/** The return_url rule: a publishable key's must be on its allowed websites (403); a secret key's must be https (400). */
export function checkReturnUrl(principal: Principal, returnUrl: string | undefined): void {
  if (returnUrl === undefined) return;
  const url = new URL(returnUrl);
  if (principal.kind === 'publishable') {
    if (!principal.origins.includes(url.origin)) {
      throw new ApiError('forbidden', `return_url must be on this publishable key's allowed websites; ${url.origin} is not.`, 'return_url');
    }
  } else if (url.protocol !== 'https:') {
    throw new ApiError('invalid_request', 'return_url must be an https address.', 'return_url');
  }
}

/**
 * Creates a checkout session: every line checked against the catalogue (first bad line → 422 naming it),
 * a random token of which only the hash is stored, and, in the same statement, the hand-off of its
 * expiry bucket's workflow when it is the bucket's first session (one workflow per store and bucket).
 */
export async function createCheckoutSession(
  em: EntityManager,
  principal: Principal,
  body: CheckoutSessionRequest,
  opts: { publicUrl: string; ttlSeconds: number },
): Promise<{ url: string; token: string; expires_at: string }> {
  checkReturnUrl(principal, body.return_url);
  const store = callerStore(principal);
  const lines: CartLine[] = body.items.map((i) => ({
    product_id: i.product_id.toLowerCase(),
    quantity: i.quantity,
    variant: i.variant ?? null,
  }));
  if (!store.published)
    throw new ApiError('unprocessable', 'items.0.product_id: this store is not published, so it sells nothing.', 'items.0.product_id');
  const cart = await priceLines(em, store, lines);
  const problem = cart.problems[0];
  if (problem) {
    const param = `items.${problem.index}.${problem.field}`;
    throw new ApiError('unprocessable', `${param}: ${problem.message}.`, param);
  }
  const { token, hash } = newCheckoutToken();
  const id = randomUUID();
  const width = expiryBucketSeconds(opts.ttlSeconds);
  const [row] = await runPrepared<Pick<CheckoutSessionRow, 'expires_at'>>(em, CREATE, [
    id,
    store.id,
    hash,
    JSON.stringify(lines),
    body.return_url ?? null,
    principal.keyId,
    opts.ttlSeconds,
    width,
    expiryHandOff(store.id),
  ]);
  const expiresAt = row!.expires_at;
  return { url: cartPageUrl({ publicUrl: opts.publicUrl }, store.slug, token), token, expires_at: iso(expiresAt) };
}

/** Stands for the bucket's end in expiryHandOff; only the database knows it (its clock sets expires_at). */
const BUCKET_END = '{bucket end}';

// The session, and, for the first session of its expiry bucket, the bucket and the hand-off of its
// checkout-expiry workflow, in one statement; the NOTIFY wakes the outbox relay at commit. A bucket ends
// on a multiple of the width since the epoch (the database clock decides expires_at, so it decides the
// bucket too), and `on conflict do nothing` returns a row only to the bucket's first session. Prepared
// (every session runs it): PostgreSQL plans it once per connection, and the JSON is bound, not inlined.
const CREATE = prepared(`with session as (
    insert into checkout_sessions (id, store_id, token_hash, lines, return_url, key_id, expires_at)
    values ($1, $2, $3, $4::jsonb, $5, $6, date_trunc('milliseconds', now()) + make_interval(secs => $7::float8))
    returning store_id, expires_at
  ), bucket as (
    insert into checkout_expiry_buckets (store_id, ends_at)
    select store_id, to_timestamp(ceil(extract(epoch from expires_at) / $8::int) * $8::int) from session
    on conflict do nothing
    returning to_char(ends_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ends_at
  ), queued as (
    insert into outbox (${HAND_OFF_COLUMN_LIST})
    select ${HAND_OFF_COLUMN_LIST} from bucket, jsonb_to_recordset(replace($9::text, '${BUCKET_END}', bucket.ends_at)::jsonb) as w(${HAND_OFF_RECORD})
    returning 1
  )
  select expires_at, (select pg_notify('${OUTBOX_CHANNEL}', '') from queued) as notified from session`);

/** The outbox row (as JSON for HAND_OFF_RECORD) that starts a store's checkout-expiry workflow of one bucket, BUCKET_END left to fill in. */
function expiryHandOff(storeId: string): string {
  return JSON.stringify([
    handOffRow(
      startWorkflow(workflows.checkoutExpiry, {
        workflowId: workflowIds.checkoutExpiry(storeId, BUCKET_END),
        args: [{ storeId, endsAt: BUCKET_END }],
        searchAttributes: { StoreId: storeId },
        summary: `checkout sessions of store ${storeId} expiring by ${BUCKET_END}`,
      }),
    ),
  ]);
}
