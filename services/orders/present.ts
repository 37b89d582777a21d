import type { Order } from '../../contract/schemas/orders.js';
import { orderTrackingPageUrl } from '../../contract/urls.js';
import type { OrderRow, StoredItem } from '../../db/tables/orders.js';
import { iso } from '../../domain/dates.js';
import { shippingStatusText } from '../../domain/tracking-progress.js';

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
    items: presentItems(row.items),
    tracking: {
      number: row.tracking_number,
      courier: row.tracking_courier,
      url: row.tracking_url,
      status_text: shippingStatusText(row.status, row.tracking_status_text),
      page_url: orderTrackingPageUrl({ publicUrl }, row.id),
    },
    note: row.note,
    risk: row.risk,
    archived: row.archived,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The items as the API shows them: a stored item is one (StoredItem), but those of rows kept with text prices. */
export const presentItems = (items: StoredItem[]): Order['items'] =>
  items.every((item) => typeof item.unit_price === 'number')
    ? (items as Order['items'])
    : items.map((item) => ({ ...item, unit_price: Number(item.unit_price) }));
