import { ORDER_STATUSES } from '../../domain/order-status.js';
import { z } from '../zod.js';
import { DateTime } from './common.js';

export const TrackingQuery = z
  .object({
    order: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .openapi({ description: 'The order number the shopper sees; a leading # is optional.', example: '1042' }),
    contact: z
      .string()
      .max(320)
      .optional()
      .transform((c) => (c?.trim() ? c : undefined))
      .openapi({
        description:
          'The last 4 digits of the phone number on the order (only digits count: "56-78" is "5678") or its email ' +
          '(case-insensitive). Required for orders copied from platform_a or platform_b; checked whenever given. ' +
          'Wrong tries count per order number across all visitors: after TRACKING_MAX_WRONG_CONTACT (5) of them the ' +
          'order answers 429 for TRACKING_LOCKOUT_SECONDS (15 minutes), even with the right contact.',
        example: '5678',
      }),
  })
  .strict();
export type TrackingQuery = z.output<typeof TrackingQuery>;

export const TrackingItem = z
  .object({
    name: z.string(),
    variant: z.string().nullable(),
    quantity: z.number(),
    image_url: z.string().nullable().openapi({ description: 'The item picture the shop sent, if any.' }),
  })
  .openapi('TrackingItem', { description: 'One line of the order, without prices or ids.' });

export const TrackingStatusChange = z
  .object({
    status: z.enum(ORDER_STATUSES),
    comment: z.string().nullable().openapi({ description: 'What the shop wrote with the change, if anything.' }),
    created_at: DateTime.openapi({ description: 'When the order took this status.' }),
  })
  .openapi('TrackingStatusChange', { description: 'One step of the order, oldest first. Who made the change is never shown.' });

export const TrackingOrder = z
  .object({
    order_number: z.string(),
    status: z.enum(ORDER_STATUSES),
    items: z.array(TrackingItem),
    total_amount: z.number(),
    shipping_fee: z.number().nullable(),
    cod_fee: z.number().nullable().openapi({ description: 'null for a prepaid order without a cash-on-delivery fee.' }),
    currency: z.string(),
    tracking_link: z.string().nullable().openapi({ description: "The courier's tracking address, if the shop gave one." }),
    status_comment: z.string().nullable(),
    shipping_awb: z.string().nullable().openapi({ description: 'The courier waybill (AWB) number.' }),
    shipping_courier: z.string().nullable(),
    shipping_status_text: z.string().nullable().openapi({
      description:
        'The shipping status in words once the order ships (Shipped, Out for delivery, Delivered); null before it ships and when cancelled.',
    }),
    status_history: z.array(TrackingStatusChange).openapi({ description: 'At most the last 100 changes, oldest first.' }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .openapi('TrackingOrder', { description: 'What a shopper may see of an order: never a name, phone, email or address.' });

export const TrackingResult = z.object({ order: TrackingOrder, store: z.object({ name: z.string() }) }).openapi('TrackingResult');
export type TrackingResult = z.output<typeof TrackingResult>;
