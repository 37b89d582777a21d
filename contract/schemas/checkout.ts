import { z } from '../zod.js';
import { DateTime } from './common.js';

/** Lines per checkout session (spec Limits) and the most of one line (keeps totals far inside the money range). */
export const MAX_CHECKOUT_LINES = 50;
export const MAX_LINE_QUANTITY = 10_000;

export const CheckoutLine = z
  .object({
    product_id: z.uuid(),
    quantity: z.int().min(1).max(MAX_LINE_QUANTITY),
    variant: z
      .record(z.string().max(100), z.string().max(200))
      .optional()
      .openapi({ description: 'Must equal one variant\'s options exactly, e.g. {"Size": "M"}.', example: { Size: 'M' } }),
  })
  .openapi('CheckoutLine', { description: 'Callers never send prices: any price field is ignored.' });

export const CheckoutSessionRequest = z
  .object({
    items: z.array(CheckoutLine).min(1).max(MAX_CHECKOUT_LINES),
    return_url: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .max(2000)
      .optional()
      .openapi({
        description:
          "Where the confirmation leads back to. With a publishable key its origin must be on the key's allowed websites; with a secret key it must be https.",
      }),
  })
  .openapi('CheckoutSessionRequest');
export type CheckoutSessionRequest = z.output<typeof CheckoutSessionRequest>;

export const CheckoutSession = z
  .object({
    url: z.url().openapi({ description: 'The cart page: send the shopper there.' }),
    token: z.string().openapi({ description: '256 random bits, base64url; only its hash is stored.' }),
    expires_at: DateTime,
  })
  .openapi('CheckoutSession');
