import {
  DRAFT_STATUSES,
  ORDER_SOURCES,
  ORDER_STATUSES,
  PLATFORM_A_PREFIXES,
  PLATFORM_A_STATUS_MAP,
  PLATFORM_B_STATUS_MAP,
  SERVICE_STATUS_MAP,
  STATUS_KINDS,
} from '../../domain/order-status.js';
import { INPUT_PAYMENT_STATUSES, PAYMENT_STATUSES } from '../../domain/payment.js';
import { RISK_LEVELS } from '../../domain/risk.js';
import { isMoneyAmount } from '../../domain/money.js';
import { decodeCursor } from '../../domain/cursor.js';
import { z } from '../zod.js';
import { DateTime } from './common.js';

/** The limits of a line item's fields (lengths of text, the largest quantity), shared with its quick reader (order-input-quick.ts). */
export const ITEM_LIMITS = { external_product_id: 255, name: 500, sku: 255, variant: 500, image_url: 2000, quantity: 1_000_000 } as const;
/** Line items accepted in one input (at most MAX_ITEMS of them are kept). */
export const MAX_INPUT_ITEMS = 10_000;

/** A money amount: a JSON number with at most 4 decimals, below 10^11. */
const Money = z.number().nonnegative().refine(isMoneyAmount, 'must have at most 4 decimals and be below 100000000000');
/** Optional text: outside platforms often send null for a missing value, so null is accepted as absent. */
const Text = (max: number) => z.string().max(max).nullish();
/** True for an absolute http(s) URL, as a browser would read it (leading spaces, tabs and newlines ignored). */
export const isWebUrl = (text: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
};
/**
 * A link we show or link to (tracking pages, storefronts): kept only when it is an absolute http(s) URL,
 * otherwise dropped (null), never refused: a plugin mirroring an outside shop must not lose an order
 * over a bad image URL, and a javascript: link must never reach a page.
 */
const WebUrl = Text(ITEM_LIMITS.image_url)
  .transform((v) => (v == null || isWebUrl(v) ? v : null))
  .openapi({ description: 'An absolute http or https URL; any other value is dropped (stored as null).' });
/** Ids and numbers from other systems arrive as strings or integers; kept as strings. */
const IdText = z.union([z.string().trim().min(1).max(255), z.int().nonnegative().transform(String)]);

/** The statuses each status_kind accepts, as interpretStatus reads them (drafts are accepted by every kind, then skipped). */
const STATUS_BY_KIND = {
  platform_a: [
    ...Object.keys(PLATFORM_A_STATUS_MAP),
    ...PLATFORM_A_PREFIXES.flatMap((prefix) => Object.keys(PLATFORM_A_STATUS_MAP).map((slug) => prefix + slug)),
  ],
  platform_b: Object.keys(PLATFORM_B_STATUS_MAP),
  service: Object.keys(SERVICE_STATUS_MAP),
};
/**
 * The input status in the document: the rule per kind in words, and the spellings each status_kind maps
 * machine-readable under x-status-by-kind.
 */
const INPUT_STATUS_DOC = {
  // No enum: a shop's custom platform status is accepted (kept as external_status); the lists are under x-status-by-kind.
  examples: ['wc-processing', 'open', 'confirmed'],
  description:
    'Interpreted according to status_kind. A service status that kind does not know is 400 invalid_request with param status; ' +
    'a platform_a or platform_b status the mapping does not know (a shop’s custom status) is accepted: the order keeps its status ' +
    '(pending when new), external_status holds the value, and the result carries a warning. ' +
    `platform_a: ${Object.keys(PLATFORM_A_STATUS_MAP).join(', ')}, each also with the prefix ${PLATFORM_A_PREFIXES.join(' or ')}. ` +
    `platform_b: ${Object.keys(PLATFORM_B_STATUS_MAP).join(', ')}. ` +
    `service: ${Object.keys(SERVICE_STATUS_MAP).join(', ')}. ` +
    `Every kind: ${DRAFT_STATUSES.join(', ')} (the order is skipped, not stored). ` +
    'Matched after trimming, case-insensitively. How each maps onto the six order statuses: docs/orders.md.',
  'x-status-by-kind': { ...STATUS_BY_KIND, drafts: [...DRAFT_STATUSES] },
};

export const OrderItemInput = z.object({
  external_product_id: z.union([Text(ITEM_LIMITS.external_product_id), z.int().nonnegative().transform(String)]),
  name: Text(ITEM_LIMITS.name),
  sku: Text(ITEM_LIMITS.sku),
  variant: Text(ITEM_LIMITS.variant),
  image_url: WebUrl,
  quantity: z.number().nonnegative().max(ITEM_LIMITS.quantity).default(1),
  unit_price: Money.default(0),
});

export const OrderInput = z
  .object({
    external_id: IdText.openapi({ description: 'Id on the other system. Re-sending the same one updates the order.', example: '1042' }),
    // prefault: a missing totals object is reported as a missing totals.total.
    totals: z
      .object({
        total: Money,
        discount: Money.optional(),
        shipping: Money.optional(),
        cod_fee: Money.optional(),
        tax: Money.optional(),
      })
      .prefault({} as never),
    number: IdText.optional().openapi({ description: 'Order number a shopper sees.' }),
    status: z.string().max(64).optional().openapi(INPUT_STATUS_DOC),
    status_kind: z
      .enum(STATUS_KINDS)
      .optional()
      .openapi({ description: 'Defaults to the connection platform for a connection key, else service.' }),
    payment: z
      .object({
        status: z.enum(INPUT_PAYMENT_STATUSES).optional(),
        method: Text(255),
        method_title: Text(255),
        is_cod: z.boolean().optional(),
        transaction_id: Text(255),
        refunded_amount: Money.optional(),
      })
      .optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
      .transform((c) => c.toUpperCase())
      .optional(),
    customer: z
      .object({
        name: Text(500),
        email: Text(500),
        phone: Text(64),
        address_line1: Text(1000),
        address_line2: Text(1000),
        city: Text(255),
        state: Text(255),
        postcode: Text(64),
        country: Text(255),
      })
      .optional(),
    items: z
      .array(OrderItemInput)
      .max(MAX_INPUT_ITEMS)
      .optional()
      .openapi({ description: 'At most 200 items are kept; the rest are dropped.' }),
    note: Text(10_000),
    tracking: z.object({ number: Text(255), courier: Text(255), url: WebUrl }).optional(),
    created_at: DateTime.optional(),
    updated_at: DateTime.optional().openapi({
      description: 'Older than the copy the service holds means the input is ignored (action unchanged).',
    }),
    admin_url: WebUrl,
    deleted: z.boolean().optional().openapi({ description: 'true archives the copy.' }),
    test: z.boolean().optional().openapi({ description: 'true means the order is skipped.' }),
    delivered: z.boolean().optional(),
  })
  .openapi('OrderInput');
export type OrderInput = z.output<typeof OrderInput>;

const Nullable = z.string().nullable();

export const Order = z
  .object({
    id: z.uuid(),
    object: z.literal('order'),
    order_number: Nullable,
    source: z.enum(ORDER_SOURCES),
    external_id: Nullable,
    external_number: Nullable,
    external_status: Nullable,
    external_url: Nullable,
    status: z.enum(ORDER_STATUSES),
    payment: z.object({
      method: z.string(),
      status: z.enum(PAYMENT_STATUSES),
      external_method: Nullable,
      external_method_title: Nullable,
    }),
    totals: z.object({ total: z.number(), discount: z.number(), shipping: z.number(), cod_fee: z.number() }),
    currency: z.string(),
    customer: z.object({
      name: z.string(),
      email: Nullable,
      phone: Nullable,
      address: Nullable,
      city: Nullable,
      state: Nullable,
      postcode: Nullable,
      country: Nullable,
    }),
    items: z.array(
      z.object({
        name: z.string(),
        variant: Nullable,
        quantity: z.number(),
        unit_price: z.number(),
        sku: Nullable,
        product_id: Nullable,
        external_product_id: Nullable,
        image_url: Nullable,
      }),
    ),
    tracking: z.object({
      number: Nullable,
      courier: Nullable,
      url: Nullable,
      status_text: Nullable.openapi({
        description:
          'The shipping status in words once the order ships (Shipped, Out for delivery, Delivered); null before it ships and when cancelled.',
      }),
      page_url: z.url(),
    }),
    note: Nullable,
    risk: z
      .object({ level: z.enum(RISK_LEVELS), flags: z.array(z.object({ code: z.string(), label: z.string() })) })
      .nullable()
      .openapi({ description: 'Only cash-on-delivery orders are flagged; flag codes are listed in docs/orders.md.' }),
    archived: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Order');
export type Order = z.input<typeof Order>;

export const OrderEnvelope = z.object({ order: Order }).openapi('OrderEnvelope');

export const UpsertResult = z
  .object({
    // A union, not Order.nullable(): a nullable $ref loses its null in the generated document.
    order: z.union([Order, z.null()]),
    action: z.enum(['created', 'updated', 'unchanged', 'skipped']),
    reason: z.string().optional().openapi({ description: 'Present when action is skipped.' }),
    warning: z.string().optional().openapi({
      description:
        'Present when the order was kept but part of the input was not understood: an outside platform status the mapping does not know (the order keeps its status, pending when new; external_status holds the value).',
    }),
  })
  .openapi('UpsertResult');
export type UpsertResult = z.input<typeof UpsertResult>;

export const BatchBody = z
  .object({
    orders: z
      .array(z.unknown())
      .min(1)
      .max(50)
      .openapi({
        // Any element is accepted here and reported in its own result, so the document must not refuse the batch.
        items: { anyOf: [{ $ref: '#/components/schemas/OrderInput' }, {}] },
        description: '1 to 50 order inputs; each is validated on its own, so one bad order never fails the batch.',
      }),
    backfill: z.boolean().default(false).openapi({ description: 'true: no webhook, mobile push or chat message for these orders.' }),
  })
  .openapi('OrderBatch');

export const BatchResult = z
  .object({
    results: z.array(
      z.object({
        external_id: z.string().nullable(),
        ok: z.boolean(),
        action: z.enum(['created', 'updated', 'unchanged', 'skipped']).optional(),
        id: z.uuid().optional(),
        error: z.string().optional(),
        warning: z
          .string()
          .optional()
          .openapi({ description: 'As in UpsertResult: the order was kept, part of its input was not understood.' }),
      }),
    ),
  })
  .openapi('BatchResult');
export type BatchResult = z.input<typeof BatchResult>;

export const OrderPatch = z
  .object({
    status: z.enum(ORDER_STATUSES).optional(),
    tracking: z
      .object({
        number: z.string().max(255).optional(),
        courier: z.string().max(255).optional(),
        // Only web addresses: the tracking page links to it, and a javascript: URL there would run.
        url: z
          .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
          .max(2000)
          .optional(),
      })
      .optional(),
    comment: z.string().max(5000).optional(),
  })
  .openapi('OrderPatch');
export type OrderPatch = z.output<typeof OrderPatch>;

export const OrderIdParams = z.object({ id: z.string().openapi({ param: { description: 'The uuid of the order.' } }) });

export const OrderListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: 'Orders per page, 1 to 100 (default 25).' }),
    cursor: z
      .string()
      .optional()
      .refine((c) => c === undefined || decodeCursor(c) !== null, 'is not a cursor this API returned')
      .openapi({ description: 'The next_cursor of the previous page; opaque, never built by the client.' }),
    status: z.enum(ORDER_STATUSES).optional().openapi({ description: 'Only orders in this status.' }),
    source: z.enum(ORDER_SOURCES).optional().openapi({ description: 'Only orders from this source.' }),
    external_id: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: "Only the order with this id on the outside platform (the way to find an order by the shop's id)." }),
    updated_since: DateTime.optional().openapi({ description: 'Only orders updated at or after this moment (the backstop poll).' }),
    created_since: DateTime.optional().openapi({ description: 'Only orders created at or after this moment.' }),
    include_archived: z.literal('true').optional().openapi({ description: 'Only the value true; also returns archived orders.' }),
  })
  .strict();

export const OrderList = z.object({ data: z.array(Order), has_more: z.boolean(), next_cursor: z.string().nullable() }).openapi('OrderList');
export const ArchiveResult = z.object({ id: z.uuid(), archived: z.literal(true) }).openapi('ArchiveResult');
