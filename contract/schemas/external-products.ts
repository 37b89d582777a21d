import { isMoneyAmount } from '../../domain/money.js';
import { z } from '../zod.js';
import { DateTime } from './common.js';

const Text = (max: number) => z.string().max(max).nullish();
/** Ids from other systems arrive as strings or integers; kept as strings. */
const IdText = z.union([z.string().trim().min(1).max(255), z.int().nonnegative().transform(String)]);
const WebUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2000);
const AMOUNT_RULE = 'must have at most 4 decimals and be below 100000000000';
/** An amount (stock may be negative: backorders on the shop). */
const Decimal = z.number().refine(isMoneyAmount, AMOUNT_RULE);

export const ExternalProductInput = z
  .object({
    external_id: IdText.openapi({ description: 'The product id on the connected shop; unique per connection.', example: '501' }),
    name: z.string().trim().min(1).max(500),
    sku: Text(255),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
      .transform((c) => c.toUpperCase())
      .nullish(),
    category: Text(255),
    description: Text(100_000),
    status: Text(64),
    price: z
      .number()
      .min(0, 'must not be negative')
      .refine(isMoneyAmount, AMOUNT_RULE)
      .nullish()
      .openapi({ description: 'The shop price, at least 0, with at most 4 decimals.' }),
    stock: Decimal.nullish(),
    image_url: WebUrl.nullish(),
    url: WebUrl.nullish(),
    images: z.array(WebUrl).max(50).nullish(),
    updated_at: DateTime.nullish().openapi({ description: 'Older than the copy held means the input is ignored.' }),
  })
  .openapi('ExternalProductInput');
export type ExternalProductInput = z.output<typeof ExternalProductInput>;

export const ExternalProductBatch = z
  .object({
    products: z
      .array(z.unknown())
      .min(1)
      .max(100)
      .openapi({
        // Any element is accepted here and reported in its own result, so the document must not refuse the batch.
        items: { anyOf: [{ $ref: '#/components/schemas/ExternalProductInput' }, {}] },
        description: '1 to 100 products; each is validated on its own, so one bad product never fails the batch.',
      }),
  })
  .openapi('ExternalProductBatch');

export const ExternalProductBatchResult = z
  .object({
    results: z.array(z.object({ external_id: z.string().nullable(), ok: z.boolean(), error: z.string().optional() })),
  })
  .openapi('ExternalProductBatchResult');

export const ExternalProductParams = z.object({
  external_id: z
    .string()
    .min(1)
    .max(255)
    .openapi({ param: { description: 'The product id on the connected shop.' } }),
});

export const ExternalProductDeleteResult = z
  .object({ external_id: z.string(), deleted: z.boolean() })
  .openapi('ExternalProductDeleteResult');
