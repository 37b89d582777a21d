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
