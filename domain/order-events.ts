import type { OrderStatus } from './order-status.js';
import type { PaymentStatus } from './payment.js';

export const ORDER_EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.confirmed',
  'order.fulfilled',
  'order.shipped',
  'order.out_for_delivery',
  'order.completed',
  'order.cancelled',
  'order.updated',
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/** The facts of an order that events are decided on. */
export interface EventState {
  status: OrderStatus;
  payment_status: PaymentStatus;
  tracking_number: string | null;
}

const FULFILLED: ReadonlySet<OrderStatus> = new Set(['shipped', 'out_for_delivery', 'completed']);
/** Fulfilled: the parcel has left (shipped or later) or a tracking number is attached. */
const isFulfilled = (s: EventState) => FULFILLED.has(s.status) || s.tracking_number !== null;

/**
 * The events one change produces, in the order a receiver should see them (docs/orders.md, Events):
 * a new order gives order.created, then order.paid when it arrives paid (a subscriber to order.paid
 * hears of every paid order); a change gives order.updated, then order.paid when payment became paid,
 * order.fulfilled when it first became fulfilled, and order.<status> when the status moved.
 */
export function eventsForChange(before: EventState | null, after: EventState): OrderEventType[] {
  if (!before) return after.payment_status === 'paid' ? ['order.created', 'order.paid'] : ['order.created'];
  const events: OrderEventType[] = ['order.updated'];
  if (after.payment_status === 'paid' && before.payment_status !== 'paid') events.push('order.paid');
  if (isFulfilled(after) && !isFulfilled(before)) events.push('order.fulfilled');
  if (after.status !== before.status && after.status !== 'pending') events.push(`order.${after.status}`);
  return events;
}
