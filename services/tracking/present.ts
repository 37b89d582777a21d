import type { TrackingResult } from '../../contract/schemas/tracking.js';
import { iso } from '../../domain/dates.js';
import { shippingStatusText } from '../../domain/tracking-progress.js';
import type { TrackingRow } from './find.js';

/**
 * The spec's Tracking result for an order. Built field by field from an allow-list: nothing of the
 * customer (name, phone, email, address) and no actor of the history can reach it.
 */
export function presentTracking(row: TrackingRow): TrackingResult {
  const codFee = Number(row.cod_fee);
  return {
    order: {
      order_number: row.order_number ?? '',
      status: row.status,
      items: row.items.map((item) => ({ name: item.name, variant: item.variant, quantity: item.quantity, image_url: item.image_url })),
      total_amount: Number(row.total),
      shipping_fee: Number(row.shipping),
      cod_fee: row.is_cod || codFee > 0 ? codFee : null,
      currency: row.currency,
      tracking_link: row.tracking_url,
      status_comment: row.status_comment,
      shipping_awb: row.tracking_number,
      shipping_courier: row.tracking_courier,
      shipping_status_text: shippingStatusText(row.status, row.tracking_status_text),
      status_history: row.history.map((h) => ({ status: h.status, comment: h.comment, created_at: iso(h.created_at) })),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    },
    store: { name: row.store_name },
  };
}
