import type { CartLine } from '../../domain/cart.js';
import { oneOf, jsonb, text, timestamptz, uuid, table, type RowOf } from './columns.js';

/** The checkout_sessions table, column for column as the migrations leave it (test/db/tables.test.ts holds the two together). */
export const CHECKOUT_SESSIONS = table('checkout_sessions', {
  id: uuid(),
  store_id: uuid(),
  token_hash: text(),
  /** open: its order can be placed; used: placed; expired: by its workflow (or read as expired past expires_at). */
  status: oneOf(['open', 'used', 'expired']).defaulted(),
  lines: jsonb<CartLine[]>(),
  return_url: text().nullable(),
  key_id: uuid().nullable(),
  order_id: uuid().nullable(),
  expires_at: timestamptz(),
  created_at: timestamptz().defaulted(),
  used_at: timestamptz().nullable(),
});

/** A checkout_sessions row as PostgreSQL returns it. */
export type CheckoutSessionRow = RowOf<typeof CHECKOUT_SESSIONS>;
