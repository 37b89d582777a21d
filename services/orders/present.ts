import type { Order } from '../../contract/schemas/orders.js';
import { orderTrackingPageUrl } from '../../contract/urls.js';
import type { StoredItem } from './order-record.js';
import type { OrderSource, OrderStatus } from '../../domain/order-status.js';
import type { PaymentStatus } from '../../domain/payment.js';

/** An orders row as PostgreSQL returns it (numeric as text, timestamptz as Date). */
export interface OrderRow {
  id: string;
  store_id: string;
  origin: string;
  source: OrderSource;
  connection_id: string | null;
  external_id: string | null;
  external_number: string | null;
  external_status: string | null;
  external_url: string | null;
  order_number: string | null;
  status: OrderStatus;
  status_comment: string | null;
  payment_method: string;
  payment_status: PaymentStatus;
  payment_external_method: string | null;
  payment_external_method_title: string | null;
  payment_transaction_id: string | null;
  payment_refunded_amount: string | null;
  is_cod: boolean;
  total: string;
  discount: string;
  shipping: string;
  cod_fee: string;
  tax: string | null;
  currency: string;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  customer_phone_key: string | null;
  customer_address: string | null;
  customer_city: string | null;
  customer_state: string | null;
  customer_postcode: string | null;
  customer_country: string | null;
  items: StoredItem[];
  tracking_number: string | null;
  tracking_courier: string | null;
  tracking_url: string | null;
  tracking_status_text: string | null;
  note: string | null;
  risk: Order['risk'];
  archived: boolean;
  content_hash: string;
  source_updated_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  version: number;
}

export const iso = (value: Date | string) => new Date(value).toISOString();

/** The API's order object for a row. */
export function presentOrder(row: OrderRow, publicUrl: string): Order {
  return {
    id: row.id,
    object: 'order',
    order_number: row.order_number,
    source: row.source,
    external_id: row.external_id,
    external_number: row.external_number,
    external_status: row.external_status,
    external_url: row.external_url,
    status: row.status,
    payment: {
      method: row.payment_method,
      status: row.payment_status,
      external_method: row.payment_external_method,
      external_method_title: row.payment_external_method_title,
    },
    totals: { total: Number(row.total), discount: Number(row.discount), shipping: Number(row.shipping), cod_fee: Number(row.cod_fee) },
    currency: row.currency,
    customer: {
      name: row.customer_name ?? '',
      email: row.customer_email,
      phone: row.customer_phone,
      address: row.customer_address,
      city: row.customer_city,
      state: row.customer_state,
      postcode: row.customer_postcode,
      country: row.customer_country,
    },
    items: row.items.map((item) => ({ ...item, unit_price: Number(item.unit_price) })),
    tracking: {
      number: row.tracking_number,
      courier: row.tracking_courier,
      url: row.tracking_url,
      status_text: row.tracking_status_text,
      page_url: orderTrackingPageUrl({ publicUrl }, row.id),
    },
    note: row.note,
    risk: row.risk,
    archived: row.archived,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
