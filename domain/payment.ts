// Payment status of an order: what input may say, what is inferred when it says nothing,
// and which method a copied order shows.
import { normalizePlatformASlug, type OrderStatus } from './order-status.js';

export const PAYMENT_STATUSES = ['unpaid', 'pending', 'paid', 'failed', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const INPUT_PAYMENT_STATUSES = [...PAYMENT_STATUSES, 'partially_refunded'] as const;
export type InputPaymentStatus = (typeof INPUT_PAYMENT_STATUSES)[number];

export type PaymentMethod = 'cod' | 'manual';

/** Maps an input payment status onto the order's five values; partially_refunded stays paid. */
export function paymentStatusFromInput(status: InputPaymentStatus): PaymentStatus {
  // Part of the money went back but the rest is still held; refunded_amount keeps the detail.
  return status === 'partially_refunded' ? 'paid' : status;
}

/**
 * Payment status implied by the order status when the input gives none.
 * `rawStatus` is the platform_a slug (with or without prefix); pass it only for status_kind platform_a.
 */
export function inferPaymentStatus(input: { status: OrderStatus; isCod: boolean; rawStatus?: string | null | undefined }): PaymentStatus {
  if (input.isCod) {
    // Cash changes hands at the door: only a delivered order has been paid.
    return input.status === 'completed' ? 'paid' : 'unpaid';
  }
  if (input.rawStatus != null) {
    // Both map to cancelled, but they tell different money stories.
    const slug = normalizePlatformASlug(input.rawStatus);
    if (slug === 'refunded') return 'refunded';
    if (slug === 'failed') return 'failed';
  }
  switch (input.status) {
    case 'pending':
      return 'pending';
    case 'cancelled':
      return 'unpaid';
    default:
      // confirmed, shipped, out_for_delivery, completed: a prepaid order only moves on once paid.
      return 'paid';
  }
}

/** The method a copied order shows: only cod or manual; the real method lives in external_method. */
export function paymentMethodOf(input: { isCod: boolean }): PaymentMethod {
  return input.isCod ? 'cod' : 'manual';
}
