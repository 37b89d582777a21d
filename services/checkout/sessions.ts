import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../api/auth/lookup.js';
import { ApiError } from '../../api/errors.js';
import { cartPageUrl } from '../../api/pages/paths.js';
import type { CheckoutSessionRequest } from '../../api/schemas/checkout.js';
import type { CartLine } from '../../domain/cart.js';
import { newCheckoutToken } from '../../domain/checkout-token.js';
import { enqueueHandOffs } from '../../db/outbox.js';
import { workflowIds, type CheckoutExpiryInput } from '../../workflows/definitions.js';
import { callerStore } from '../catalog/read.js';
import { priceLines } from './cart.js';

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
 * a random token of which only the hash is stored, and, in the same transaction, the hand-off that
 * starts its checkout-expiry workflow exactly once.
 */
export async function createCheckoutSession(
  em: EntityManager,
  principal: Principal,
  body: CheckoutSessionRequest,
  opts: { publicUrl: string; ttlSeconds: number },
): Promise<{ url: string; token: string; expires_at: string }> {
  checkReturnUrl(principal, body.return_url);
  const store = callerStore(principal);
  const lines: CartLine[] = body.items.map((i) => ({ product_id: i.product_id.toLowerCase(), quantity: i.quantity, variant: i.variant ?? null }));
  if (!store.published) throw new ApiError('unprocessable', 'items.0.product_id: this store is not published, so it sells nothing.', 'items.0.product_id');
  const cart = await priceLines(em, store, lines);
  const problem = cart.problems[0];
  if (problem) {
    const param = `items.${problem.index}.${problem.field}`;
    throw new ApiError('unprocessable', `${param}: ${problem.message}.`, param);
  }
  const { token, hash } = newCheckoutToken();
  const id = randomUUID();
  const expiresAt = await em.transactional(async (tx) => {
    const [row] = await tx.execute<{ expires_at: Date }[]>(
      `insert into checkout_sessions (id, store_id, token_hash, lines, return_url, key_id, expires_at)
       values (?, ?, ?, ?::jsonb, ?, ?, date_trunc('milliseconds', now()) + make_interval(secs => ?)) returning expires_at`,
      [id, store.id, hash, JSON.stringify(lines), body.return_url ?? null, principal.keyId, opts.ttlSeconds],
    );
    const input: CheckoutExpiryInput = { sessionId: id, storeId: store.id, ttlMs: opts.ttlSeconds * 1000 };
    await enqueueHandOffs(tx, [
      {
        workflowType: 'checkoutExpiryWorkflow',
        workflowId: workflowIds.checkoutExpiry(id),
        args: [input],
        searchAttributes: { StoreId: store.id },
        summary: `checkout session ${id}: ${lines.length} line(s), open for ${opts.ttlSeconds} s`,
      },
    ]);
    return row!.expires_at;
  });
  return { url: cartPageUrl({ publicUrl: opts.publicUrl }, store.slug, token), token, expires_at: new Date(expiresAt).toISOString() };
}
