import type { OrderStatus } from './order-status.js';

/** The words a shopper reads for each status ("completed" means delivered). */
export const STATUS_LABELS: Record<OrderStatus, string> = {
  pending: 'Pending',
  confirmed: 'Confirmed',
  shipped: 'Shipped',
  out_for_delivery: 'Out for delivery',
  completed: 'Delivered',
  cancelled: 'Cancelled',
};

/** The statuses that say where the parcel is: from them on the order is with the courier. */
const SHIPPING_STATUSES: readonly OrderStatus[] = ['shipped', 'out_for_delivery', 'completed'];

/**
 * The shipping status in words (the order's tracking.status_text, the tracking result's
 * shipping_status_text): the shopper's label of the order's status once the parcel is on its way
 * (Shipped, Out for delivery, Delivered); null before it ships and for a cancelled order. A text the
 * order carries itself wins over it.
 */
export function shippingStatusText(status: OrderStatus, stored: string | null = null): string | null {
  return stored ?? (SHIPPING_STATUSES.includes(status) ? STATUS_LABELS[status] : null);
}

const STEPS: OrderStatus[] = ['pending', 'confirmed', 'shipped', 'out_for_delivery', 'completed'];

export interface ProgressStep {
  status: OrderStatus;
  label: string;
  state: 'done' | 'current' | 'todo';
}

/** The progress line pending → confirmed → shipped → out for delivery → delivered; null for a cancelled order. */
export function progressLine(status: OrderStatus): ProgressStep[] | null {
  const at = STEPS.indexOf(status);
  if (at < 0) return null;
  return STEPS.map((step, i) => ({ status: step, label: STATUS_LABELS[step], state: i < at ? 'done' : i === at ? 'current' : 'todo' }));
}
