// A quick reading of order inputs. zod's check of OrderInput costs the API about 6 µs per line item under
// load (its per-field results and issue lists, and the garbage they leave): a 200-item order spent 1.2 ms of
// the API's one thread there, of 3.08 ms in all (bench/README.md, "A big order's validation"). Inputs of the
// plain shape every plugin sends are read here by hand; any value outside it is left to the schema, which
// then decides and words the error. So this module only ever says yes, and only where OrderInput says yes
// with the same value, keys in the same order: test/orders/order-input-quick.test.ts holds it to that, and
// to knowing every field of the schema.
import { isMoneyAmount } from '../../domain/money.js';
import { STATUS_KINDS } from '../../domain/order-status.js';
import { INPUT_PAYMENT_STATUSES } from '../../domain/payment.js';
import { DateTime } from './common.js';
import { ITEM_LIMITS, MAX_INPUT_ITEMS, OrderInput, isWebUrl } from './orders.js';

/** A value this reader leaves to the schema. */
const UNSURE = Symbol('unsure');
/** Reads one present value (never undefined): the schema's result for it, or UNSURE. */
type Reader = (value: unknown) => unknown;
/** A field of an object: its reader, and what an absent key gives (OMIT: no key; REQUIRED: left to the schema). */
interface Field {
  read: Reader;
  absent: unknown;
}
const OMIT = Symbol('omit');
const REQUIRED = Symbol('required');

const optional = (read: Reader): Field => ({ read, absent: OMIT });
const withDefault = (read: Reader, value: unknown): Field => ({ read, absent: value });
const required = (read: Reader): Field => ({ read, absent: REQUIRED });

/** z.string().max(max), and with `nullable` null too. */
const text =
  (max: number, nullable = true): Reader =>
  (v) =>
    (nullable && v === null) || (typeof v === 'string' && v.length <= max) ? v : UNSURE;
/** orders.ts WebUrl: text up to 2,000, kept when an http(s) URL, else null (dropped, never refused). */
const webUrl: Reader = (v) => {
  const t = text(ITEM_LIMITS.image_url)(v);
  return typeof t === 'string' && !isWebUrl(t) ? null : t;
};
/** orders.ts Money. */
const money: Reader = (v) => (typeof v === 'number' && v >= 0 && isMoneyAmount(v) ? v : UNSURE);
const boolean: Reader = (v) => (typeof v === 'boolean' ? v : UNSURE);
const oneOf =
  (values: readonly string[]): Reader =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? v : UNSURE;
const wholeAsText = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : UNSURE);
/** orders.ts IdText: trimmed text of 1 to 255, or a whole number as text. */
const idText: Reader = (v) => {
  if (typeof v !== 'string') return wholeAsText(v);
  const trimmed = v.trim();
  return trimmed.length >= 1 && trimmed.length <= 255 ? trimmed : UNSURE;
};
/** The item's external_product_id: text up to 255 (not trimmed), null, or a whole number as text. */
const productId: Reader = (v) => (typeof v === 'number' ? wholeAsText(v) : text(ITEM_LIMITS.external_product_id)(v));
const currency: Reader = (v) => (typeof v === 'string' && /^[A-Za-z]{3}$/.test(v) ? v.toUpperCase() : UNSURE);
const quantity: Reader = (v) => (typeof v === 'number' && v >= 0 && v <= ITEM_LIMITS.quantity ? v : UNSURE);
/** Timestamps are rare in an input and their rule is long: the schema reads them, alone. */
const dateTime: Reader = (v) => {
  const parsed = DateTime.safeParse(v);
  return parsed.success ? parsed.data : UNSURE;
};

/** A zod object of these fields (unknown keys dropped): each in the schema's order, absent ones as the schema leaves them. */
function object(fields: Record<string, Field>): Reader & { fields: Record<string, Field> } {
  const entries = Object.entries(fields);
  const read = (value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return UNSURE;
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, field] of entries) {
      const v = input[key];
      if (v === undefined) {
        // Present as undefined cannot come from JSON, and zod keeps such a key: left to it.
        if (field.absent === REQUIRED || key in input) return UNSURE;
        if (field.absent !== OMIT) out[key] = field.absent;
        continue;
      }
      const fieldValue = field.read(v);
      if (fieldValue === UNSURE) return UNSURE;
      out[key] = fieldValue;
    }
    return out;
  };
  // The test compares these with the schema's shape.
  return Object.assign(read, { fields });
}

function array(read: Reader, max: number): Reader & { element: Reader } {
  const readArray = (value: unknown) => {
    if (!Array.isArray(value) || value.length > max) return UNSURE;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = read(value[i]);
      if (item === UNSURE) return UNSURE;
      out[i] = item;
    }
    return out;
  };
  return Object.assign(readArray, { element: read });
}

/** OrderItemInput's fields, in its order. */
const ITEM_FIELDS = {
  external_product_id: optional(productId),
  name: optional(text(ITEM_LIMITS.name)),
  sku: optional(text(ITEM_LIMITS.sku)),
  variant: optional(text(ITEM_LIMITS.variant)),
  image_url: optional(webUrl),
  quantity: withDefault(quantity, 1),
  unit_price: withDefault(money, 0),
};

/**
 * OrderInput's fields, in its order, and those of its objects; the lengths are the schema's (orders.ts), and
 * the test fails when one of them, or a field, differs.
 */
export const ORDER_FIELDS = {
  external_id: required(idText),
  totals: required(
    object({
      total: required(money),
      discount: optional(money),
      shipping: optional(money),
      cod_fee: optional(money),
      tax: optional(money),
    }),
  ),
  number: optional(idText),
  status: optional(text(64, false)),
  status_kind: optional(oneOf(STATUS_KINDS)),
  payment: optional(
    object({
      status: optional(oneOf(INPUT_PAYMENT_STATUSES)),
      method: optional(text(255)),
      method_title: optional(text(255)),
      is_cod: optional(boolean),
      transaction_id: optional(text(255)),
      refunded_amount: optional(money),
    }),
  ),
  currency: optional(currency),
  customer: optional(
    object({
      name: optional(text(500)),
      email: optional(text(500)),
      phone: optional(text(64)),
      address_line1: optional(text(1000)),
      address_line2: optional(text(1000)),
      city: optional(text(255)),
      state: optional(text(255)),
      postcode: optional(text(64)),
      country: optional(text(255)),
    }),
  ),
  items: optional(array(object(ITEM_FIELDS), MAX_INPUT_ITEMS)),
  note: optional(text(10_000)),
  tracking: optional(object({ number: optional(text(255)), courier: optional(text(255)), url: optional(webUrl) })),
  created_at: optional(dateTime),
  updated_at: optional(dateTime),
  admin_url: optional(webUrl),
  deleted: optional(boolean),
  test: optional(boolean),
  delivered: optional(boolean),
};

const readOrder = object(ORDER_FIELDS);

/** OrderInput's result for an input of the plain shape; undefined for any other (then OrderInput decides). */
export function quickOrderInput(raw: unknown): OrderInput | undefined {
  const read = readOrder(raw);
  return read === UNSURE ? undefined : (read as OrderInput);
}

/** OrderInput's result for an input: quickOrderInput's when it reads it, else the schema's safeParse. */
export function parseOrderInput(raw: unknown): ReturnType<typeof OrderInput.safeParse> {
  const quick = quickOrderInput(raw);
  return quick === undefined ? OrderInput.safeParse(raw) : { success: true, data: quick };
}
