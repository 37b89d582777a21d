import type { EntityManager } from '@mikro-orm/postgresql';
import { numbered, prepared, runPrepared } from '../../db/prepared.js';
import type { CartLine } from '../../domain/cart.js';
import { hashCheckoutToken, isWellFormedToken } from '../../domain/checkout-token.js';
import { sellsCatalogue } from '../../domain/store-mode.js';
import type { StoreFacts } from '../catalog/product-row.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { StoreRow } from '../../db/entities/store.js';

/** A checkout session as the cart page sees it. */
export interface CartSession {
  id: string;
  store: StoreFacts;
  /** open: can place its order; used: its order is placed; expired: by the workflow or by expires_at. */
  state: 'open' | 'used' | 'expired';
  lines: CartLine[];
  returnUrl: string | null;
  orderId: string | null;
  expiresAt: Date;
}

// The session, then its store (s.id and s.name renamed, so they do not clash with the session's).
type Row = Pick<CheckoutSessionRow, 'id' | 'status' | 'lines' | 'return_url' | 'order_id' | 'expires_at'> &
  Pick<StoreRow, 'slug' | 'currency' | 'published' | 'mode' | 'standard_delivery_fee'> & {
    past_expiry: boolean;
    store_id: StoreRow['id'];
    store_name: StoreRow['name'];
  };

// Every cart page (and every placing) reads its session first: prepared, planned once per pooled connection.
const BY_TOKEN = prepared(
  numbered(`select c.id, c.status, c.lines, c.return_url, c.order_id, c.expires_at, (c.expires_at <= now()) as past_expiry,
       s.id as store_id, s.name as store_name, s.slug, s.currency, s.published, s.mode, s.standard_delivery_fee
     from checkout_sessions c join stores s on s.id = c.store_id where c.token_hash = ?`),
);

/** The session of a cart token, or null for a malformed or unknown token. Expiry is read from the database clock every time. */
export async function findCartSession(em: EntityManager, token: string): Promise<CartSession | null> {
  if (!isWellFormedToken(token)) return null;
  const rows = await runPrepared<Row>(em, BY_TOKEN, [hashCheckoutToken(token)]);
  const row = rows[0];
  if (!row) return null;
  const state = row.status === 'used' ? 'used' : row.status === 'expired' || row.past_expiry ? 'expired' : 'open';
  return {
    id: row.id,
    store: {
      id: row.store_id,
      name: row.store_name,
      slug: row.slug,
      currency: row.currency,
      published: sellsCatalogue(row),
      standard_delivery_fee: row.standard_delivery_fee,
    },
    state,
    lines: row.lines,
    returnUrl: row.return_url,
    orderId: row.order_id,
    expiresAt: new Date(row.expires_at),
  };
}
