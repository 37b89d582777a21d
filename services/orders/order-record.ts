import { hash } from 'node:crypto';
import { ApiError } from '../../contract/errors.js';
import type { OrderInput } from '../../contract/schemas/orders.js';
import { columnsExcept } from '../../db/tables/columns.js';
import { ORDERS, type OrderRow, type StoredItem } from '../../db/tables/orders.js';
import { amountAsJson, toNumericText } from '../../domain/money.js';
import { applyDeliveryFacts, interpretStatus, type OrderStatus, type StatusKind } from '../../domain/order-status.js';
import { inferPaymentStatus, paymentMethodOf, paymentStatusFromInput, type PaymentStatus } from '../../domain/payment.js';
import { phoneKey } from '../../domain/risk.js';
import { cleanMultiline, cleanText } from '../../domain/text.js';

/** Line items kept per order (spec Limits). */
export const MAX_ITEMS = 200;

/**
 * The orders columns an upsert writes from its JSON rows (upsert-rows.ts). The sender's columns (store,
 * origin, source, connection) are bound apart; status_comment and tracking_status_text are PATCH's;
 * updated_at and version are the database's.
 */
export const UPSERT_COLUMNS = columnsExcept(ORDERS, [
  'store_id',
  'origin',
  'source',
  'connection_id',
  'status_comment',
  'tracking_status_text',
  'updated_at',
  'version',
]);
type UpsertColumn = (typeof UPSERT_COLUMNS)[number];

/** Replaces the types of some keys of T. */
type Override<T, U> = Omit<T, keyof U> & U;

/** One row of an upsert, as JSON for jsonb_to_recordset: a null created_at means now. */
export type UpsertRow = Override<Pick<OrderRow, UpsertColumn>, { created_at: string | null; source_updated_at: string | null }>;

/**
 * What one order input says, cleaned and interpreted, before it meets the copy we hold: the upsert's
 * columns but those resolved against the held copy (id, external_number, payment method and status,
 * risk), some of them still open (null: the held copy's, or the default), and how to resolve the rest.
 */
export type OrderFacts = Override<
  Pick<UpsertRow, Exclude<UpsertColumn, 'id' | 'external_number' | 'payment_method' | 'payment_status' | 'risk'>>,
  {
    external_id: string;
    /** null when the input names no status: the held status stays (pending for a new order). */
    status: OrderStatus | null;
    /** null: the held copy's currency, else the store's. */
    currency: string | null;
    /** true archives, false restores, null leaves as is. */
    archived: boolean | null;
  }
> & {
  /** The status_kind the status was read with (the input's, else the key's default). */
  status_kind: StatusKind;
  /** Set when an outside status was not in its platform's mapping: the order is kept with the default status. */
  status_warning: string | null;
  delivered: boolean;
  payment_status_input: PaymentStatus | null;
};

/** What one input comes to: its facts, or why it is not stored (a test order, a draft-type status). */
export type FactsResult = { facts: OrderFacts } | { skip: string };

const money = (n: number | undefined) => (n === undefined ? null : toNumericText(n));

/**
 * Cleans and interprets one validated order input (status by status_kind, payment, items, text). A service
 * status it cannot read is the client's mistake; an outside platform's status it does not know (a shop's
 * custom status) never loses the order: the status stays as held (pending when new), with a warning.
 */
export function orderFacts(input: OrderInput, defaultKind: StatusKind): FactsResult {
  if (input.test) return { skip: 'test order (test: true) is not stored' };
  const kind = input.status_kind ?? defaultKind;
  let status: OrderStatus | null = null;
  let statusWarning: string | null = null;
  if (input.status !== undefined) {
    const interpreted = interpretStatus(kind, input.status);
    if (!interpreted.ok) {
      if (kind === 'service' || input.status.trim() === '')
        throw new ApiError('invalid_request', `status: ${interpreted.message}`, 'status');
      statusWarning = `${interpreted.message}; the order is kept with its current status (pending when new) and external_status holds the value`;
    } else if (interpreted.skip !== undefined) return { skip: interpreted.skip };
    else status = interpreted.status;
  }
  const customer = input.customer ?? {};
  const address = [cleanText(customer.address_line1), cleanText(customer.address_line2)].filter(Boolean).join(', ') || null;
  const country = cleanText(customer.country) ?? null;
  const phone = cleanText(customer.phone) ?? null;
  const items = (input.items ?? []).slice(0, MAX_ITEMS).map((item): StoredItem => ({
    name: cleanText(item.name) ?? '',
    variant: cleanText(item.variant) ?? null,
    quantity: item.quantity,
    unit_price: money(item.unit_price)!,
    sku: cleanText(item.sku) ?? null,
    product_id: null,
    external_product_id: cleanText(item.external_product_id) ?? null,
    image_url: cleanText(item.image_url) ?? null,
  }));
  const facts: Omit<OrderFacts, 'content_hash'> = {
    external_id: cleanText(input.external_id) ?? input.external_id,
    order_number: cleanText(input.number) ?? null,
    external_status: cleanText(input.status) ?? null,
    external_url: cleanText(input.admin_url) ?? null,
    status,
    status_kind: kind,
    status_warning: statusWarning,
    delivered: input.delivered === true,
    payment_status_input: input.payment?.status ? paymentStatusFromInput(input.payment.status) : null,
    is_cod: input.payment?.is_cod === true,
    payment_external_method: cleanText(input.payment?.method) ?? null,
    payment_external_method_title: cleanText(input.payment?.method_title) ?? null,
    payment_transaction_id: cleanText(input.payment?.transaction_id) ?? null,
    payment_refunded_amount: money(input.payment?.refunded_amount),
    total: money(input.totals.total)!,
    discount: money(input.totals.discount) ?? '0.0000',
    shipping: money(input.totals.shipping) ?? '0.0000',
    cod_fee: money(input.totals.cod_fee) ?? '0.0000',
    tax: money(input.totals.tax),
    currency: input.currency ?? null,
    customer_name: cleanText(customer.name) ?? null,
    customer_email: cleanText(customer.email)?.toLowerCase() ?? null,
    customer_phone: phone,
    customer_phone_key: phoneKey(phone, country),
    customer_address: address,
    customer_city: cleanText(customer.city) ?? null,
    customer_state: cleanText(customer.state) ?? null,
    customer_postcode: cleanText(customer.postcode) ?? null,
    customer_country: country,
    items,
    tracking_number: cleanText(input.tracking?.number) ?? null,
    tracking_courier: cleanText(input.tracking?.courier) ?? null,
    tracking_url: cleanText(input.tracking?.url) ?? null,
    note: cleanMultiline(input.note) ?? null,
    archived: input.deleted === undefined ? null : input.deleted,
    created_at: input.created_at ?? null,
    source_updated_at: input.updated_at ?? null,
  };
  // updated_at is left out of the fingerprint: a re-send that only moves the clock changes nothing.
  const { source_updated_at: _ignored, status_warning: _warning, ...fingerprinted } = facts;
  const content_hash = hash('sha256', JSON.stringify(fingerprinted), 'base64url');
  // Fingerprinted with the prices as numeric text, as every stored content_hash was (a re-send stays
  // "unchanged"); stored as JSON numbers (StoredItem).
  for (const item of items) item.unit_price = amountAsJson(item.unit_price as string);
  return { facts: { ...facts, content_hash } };
}

/** The held copy's fields that decide how new facts apply. */
export type HeldOrder = Pick<OrderRow, 'status' | 'archived' | 'content_hash' | 'source_updated_at'>;

const PROGRESS: Record<OrderStatus, number> = { pending: 0, confirmed: 1, shipped: 2, out_for_delivery: 3, completed: 4, cancelled: -1 };

/**
 * The status an upsert leaves: the input's (or the held one when it names none), moved forward by
 * delivery facts. A re-sent copy never moves an order back along pending → … → completed: shipping
 * progress is the service's to report; cancelling and un-cancelling follow the input.
 */
export function resolveStatus(facts: OrderFacts, held: HeldOrder | null): OrderStatus {
  let status = facts.status ?? held?.status ?? 'pending';
  if (held && status !== 'cancelled' && held.status !== 'cancelled' && PROGRESS[status] < PROGRESS[held.status]) status = held.status;
  return applyDeliveryFacts(status, { delivered: facts.delivered, hasTrackingNumber: facts.tracking_number !== null });
}

/** Payment status: the input's, else inferred from the order status and the raw platform_a slug (docs/orders.md). */
export function resolvePaymentStatus(facts: OrderFacts, status: OrderStatus): PaymentStatus {
  // The kind the input was read with, not the key's default: a secret key may send platform_a slugs.
  const rawStatus = facts.status_kind === 'platform_a' ? facts.external_status : null;
  return facts.payment_status_input ?? inferPaymentStatus({ status, isCod: facts.is_cod, rawStatus });
}

export const paymentMethod = paymentMethodOf;

/** Why an input leaves the held copy as it is, or null when it must be applied. */
export function unchangedReason(facts: OrderFacts, held: HeldOrder | null): 'same' | 'stale' | null {
  if (!held) return null;
  if (facts.source_updated_at && held.source_updated_at && Date.parse(facts.source_updated_at) < new Date(held.source_updated_at).getTime())
    return 'stale';
  return facts.content_hash === held.content_hash ? 'same' : null;
}
