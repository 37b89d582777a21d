import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { stockAfter, type PricedCart } from '../../domain/cart.js';
import type { Shopper } from '../../domain/shopper-form.js';
import { sellsCatalogue } from '../../domain/store-mode.js';
import { storedVariants, type StoreFacts } from '../catalog/product-row.js';
import { priceLines } from './cart.js';
import { createNativeOrder } from './native-order.js';
import type { CartSession } from './session-row.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { StoreRow } from '../../db/entities/store.js';

/**
 * What placing a cart came to. Results, not errors: a cart meeting the shop as it is now (sold out,
 * repriced, expired, already placed) is no mistake of the shopper's; the cart page shows each one.
 */
export type PlaceOutcome =
  | { kind: 'placed'; orderId: string }
  /** The session had already placed its order (a double submit): that order, never a second one. */
  | { kind: 'used'; orderId: string | null }
  | { kind: 'expired' }
  /** A line can no longer be ordered (sold out, archived, unpublished); nothing was written. */
  | { kind: 'unavailable'; cart: PricedCart }
  /** The total is not the one the shopper saw; nothing was written. */
  | { kind: 'changed'; cart: PricedCart };

/** Thrown inside the transaction to roll it back with an outcome for the shopper. */
class Refused extends Error {
  constructor(readonly outcome: PlaceOutcome) {
    super(outcome.kind);
  }
}

/**
 * Places the session's order in one transaction: the session is claimed (open and not past expires_at,
 * so a double submit finds it used), stock is taken under row locks (never oversold: a line that no
 * longer fits rolls everything back) and the native order is created with its events. Nothing is sent to
 * the checkout-expiry workflow: it only expires open sessions, and this one is now used.
 */
export async function placeCartOrder(
  em: EntityManager,
  session: CartSession,
  shopper: Shopper,
  expectedTotal: bigint | null,
  publicUrl: string,
): Promise<PlaceOutcome> {
  let outcome: PlaceOutcome | null;
  try {
    outcome = await writeTransaction(em, async (tx) => {
      const claimed = await executeBound(
        tx,
        `update checkout_sessions set status = 'used', used_at = now() where id = ? and status = 'open' and expires_at > now() returning id`,
        [session.id],
      );
      if (claimed.length === 0) return null;
      const [row] = await executeBound<StoreFacts & Pick<StoreRow, 'mode'>>(
        tx,
        `select id, name, slug, currency, published, mode, standard_delivery_fee from stores where id = ?`,
        [session.store.id],
      );
      // Open for sale as the catalogue says it (a tracking_only store sells nothing), at the moment of placing.
      const store = { ...row!, published: sellsCatalogue(row!) };
      const cart = await priceLines(tx, store, session.lines, true);
      if (cart.problems.length > 0) throw new Refused({ kind: 'unavailable', cart });
      if (expectedTotal !== null && cart.total !== expectedTotal) throw new Refused({ kind: 'changed', cart });
      await takeStock(tx, cart);
      const order = await createNativeOrder(tx, store, cart, shopper, publicUrl);
      await executeBound(tx, `update checkout_sessions set order_id = ? where id = ?`, [order.id, session.id]);
      return { kind: 'placed', orderId: order.id } as const;
    });
  } catch (err) {
    if (err instanceof Refused) return err.outcome;
    throw err;
  }
  if (outcome) return outcome;
  // Not claimable: already used (a double submit, possibly racing this one) or expired. Read what committed.
  const [row] = await executeBound<Pick<CheckoutSessionRow, 'status' | 'order_id'>>(
    em,
    `select status, order_id from checkout_sessions where id = ?`,
    [session.id],
  );
  return row?.status === 'used' ? { kind: 'used', orderId: row.order_id } : { kind: 'expired' };
}

/** Takes the cart's quantities from stock; the rows are locked by priceLines, and the guard is a second safety. */
async function takeStock(tx: EntityManager, cart: PricedCart): Promise<void> {
  const before = new Map(cart.lines.map((l) => [l.product.id, l.product]));
  for (const [productId, after] of stockAfter(cart)) {
    const product = before.get(productId)!;
    const updated =
      product.variants.length > 0
        ? await executeBound(tx, `update products set variants = ?::jsonb, updated_at = now() where id = ? returning id`, [
            JSON.stringify(storedVariants(after.variants)),
            productId,
          ])
        : await executeBound(tx, `update products set stock = stock - ?, updated_at = now() where id = ? and stock >= ? returning id`, [
            product.stock! - after.stock!,
            productId,
            product.stock! - after.stock!,
          ]);
    if (updated.length === 0) throw new Refused({ kind: 'unavailable', cart });
  }
}
