import { ORDER_SOURCES, ORDER_STATUSES } from '../../domain/order-status.js';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import type { RiskAssessment } from '../../domain/risk.js';
import { boolean, integer, jsonb, numeric, oneOf, table, text, timestamptz, uuid, type RowOf } from './columns.js';

/**
 * A line item as orders.items stores it. unit_price is a JSON number, exact (domain/money.ts amountAsJson):
 * the item as the API presents it, so an order's events take their items from the row written
 * (services/orders/events.ts) instead of a second copy. Rows written before 2026-12-07 hold it as numeric
 * text ('19.9900'): readers take either (presentItems).
 */
export interface StoredItem {
  name: string;
  variant: string | null;
  quantity: number;
  unit_price: number | string;
  sku: string | null;
  product_id: string | null;
  external_product_id: string | null;
  image_url: string | null;
}

const money = () => numeric(15, 4);

/**
 * The orders table, column for column as the migrations leave it (test/db/tables.test.ts holds the two
 * together). The upsert's and checkout's hand-written SQL take their column lists from it.
 */
export const ORDERS = table('orders', {
  id: uuid(),
  store_id: uuid(),
  /** 'api', 'native', or `<platform>:<shop host>` of a connected shop (services/orders/sender.ts originOf): external ids are unique per origin. */
  origin: text(),
  source: oneOf(ORDER_SOURCES),
  connection_id: uuid().nullable(),
  external_id: text().nullable(),
  external_number: text().nullable(),
  external_status: text().nullable(),
  external_url: text().nullable(),
  order_number: text().nullable(),
  status: oneOf(ORDER_STATUSES),
  status_comment: text().nullable(),
  payment_method: text(),
  payment_status: oneOf(PAYMENT_STATUSES),
  payment_external_method: text().nullable(),
  payment_external_method_title: text().nullable(),
  payment_transaction_id: text().nullable(),
  payment_refunded_amount: money().nullable(),
  is_cod: boolean().defaulted(),
  total: money(),
  discount: money().defaulted(),
  shipping: money().defaulted(),
  cod_fee: money().defaulted(),
  tax: money().nullable(),
  currency: text(),
  customer_name: text().nullable(),
  customer_email: text().nullable(),
  customer_phone: text().nullable(),
  /** The phone in a comparable form, for the risk history of a number. */
  customer_phone_key: text().nullable(),
  customer_address: text().nullable(),
  customer_city: text().nullable(),
  customer_state: text().nullable(),
  customer_postcode: text().nullable(),
  customer_country: text().nullable(),
  items: jsonb<StoredItem[]>().defaulted(),
  tracking_number: text().nullable(),
  tracking_courier: text().nullable(),
  tracking_url: text().nullable(),
  tracking_status_text: text().nullable(),
  note: text().nullable(),
  risk: jsonb<RiskAssessment>().nullable(),
  archived: boolean().defaulted(),
  /** Fingerprint of the last input applied: the same input again is `unchanged` without a write. */
  content_hash: text(),
  /** The outside platform's updated_at of the copy held: an older input changes nothing. */
  source_updated_at: timestamptz().nullable(),
  created_at: timestamptz().defaulted(),
  updated_at: timestamptz().defaulted(),
  version: integer().defaulted(),
});

/** An orders row as PostgreSQL returns it (numeric as text, timestamptz as Date or text). */
export type OrderRow = RowOf<typeof ORDERS>;
