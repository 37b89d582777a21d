// Order statuses, sources and status kinds, and how an outside status becomes one of ours.
// Pure data and functions: docs/orders.md prints these same tables.

export const ORDER_STATUSES = ['pending', 'confirmed', 'shipped', 'out_for_delivery', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_SOURCES = ['native', 'platform_a', 'platform_b', 'api'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

export const STATUS_KINDS = ['platform_a', 'platform_b', 'service'] as const;
export type StatusKind = (typeof STATUS_KINDS)[number];

/** Outside statuses of orders that are not real yet (or thrown away): never stored, for every kind. */
export const DRAFT_STATUSES = ['checkout-draft', 'auto-draft', 'draft', 'trash'] as const;

/** Prefixes platform_a may put before its slugs; its own `wc-` and the neutral `platform_a-`. */
export const PLATFORM_A_PREFIXES = ['wc-', 'platform_a-'] as const;

/** platform_a slugs (prefix removed), including the ones common shipping plugins add. */
export const PLATFORM_A_STATUS_MAP: Readonly<Record<string, OrderStatus>> = {
  pending: 'pending',
  'on-hold': 'pending',
  processing: 'confirmed',
  shipped: 'shipped',
  'out-for-delivery': 'out_for_delivery',
  out_for_delivery: 'out_for_delivery',
  delivered: 'completed',
  completed: 'completed',
  cancelled: 'cancelled',
  refunded: 'cancelled',
  failed: 'cancelled',
};

/** platform_b fulfillment statuses. */
export const PLATFORM_B_STATUS_MAP: Readonly<Record<string, OrderStatus>> = {
  open: 'confirmed',
  // Part of the order has left, not all of it: the order as a whole is not shipped yet.
  partial: 'confirmed',
  fulfilled: 'shipped',
  cancelled: 'cancelled',
};

/** The service's own vocabulary: the six statuses and a few aliases. */
export const SERVICE_STATUS_MAP: Readonly<Record<string, OrderStatus>> = {
  ...Object.fromEntries(ORDER_STATUSES.map((s) => [s, s])),
  delivered: 'completed',
  fulfilled: 'shipped',
  processing: 'confirmed',
  paid: 'confirmed',
  canceled: 'cancelled',
};

const MAPS: Readonly<Record<StatusKind, Readonly<Record<string, OrderStatus>>>> = {
  platform_a: PLATFORM_A_STATUS_MAP,
  platform_b: PLATFORM_B_STATUS_MAP,
  service: SERVICE_STATUS_MAP,
};

export type StatusInterpretation =
  { ok: true; status: OrderStatus; skip?: undefined } | { ok: true; skip: string; status?: undefined } | { ok: false; message: string };

/** True for exactly the six OrderStatus values. */
export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

/** Lower-cased, trimmed platform_a slug with at most one known prefix removed. */
export function normalizePlatformASlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  const prefix = PLATFORM_A_PREFIXES.find((p) => slug.startsWith(p) && slug.length > p.length);
  return prefix ? slug.slice(prefix.length) : slug;
}

/** Maps a raw outside status onto an OrderStatus, a skip (draft types) or an error message; never guesses. */
export function interpretStatus(kind: StatusKind, raw: string): StatusInterpretation {
  const slug = kind === 'platform_a' ? normalizePlatformASlug(raw) : raw.trim().toLowerCase();
  if (slug === '') return { ok: false, message: 'status must not be empty' };
  if ((DRAFT_STATUSES as readonly string[]).includes(slug)) {
    return { ok: true, skip: `draft-type status ${slug} is not stored` };
  }
  const map = MAPS[kind];
  // Own-property check: a slug like "constructor" must not hit Object.prototype.
  if (Object.hasOwn(map, slug)) return { ok: true, status: map[slug] as OrderStatus };
  const shown = raw.trim().slice(0, 64);
  return { ok: false, message: `unknown ${kind} status "${shown}"; expected one of: ${Object.keys(map).join(', ')}` };
}

/** Moves a status forward to what delivery facts prove; never backwards and never out of cancelled. */
export function applyDeliveryFacts(
  status: OrderStatus,
  facts: { delivered?: boolean | undefined; hasTrackingNumber: boolean },
): OrderStatus {
  if (status === 'cancelled') return status;
  if (facts.delivered === true) return 'completed';
  if (facts.hasTrackingNumber && (status === 'pending' || status === 'confirmed')) return 'shipped';
  return status;
}

/** Status changes PATCH /orders/{id} allows; completed and cancelled are terminal. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['confirmed', 'shipped', 'out_for_delivery', 'completed', 'cancelled'],
  confirmed: ['shipped', 'out_for_delivery', 'completed', 'cancelled'],
  // out_for_delivery → shipped: a failed delivery attempt sends the parcel back into transit.
  shipped: ['out_for_delivery', 'completed', 'cancelled'],
  out_for_delivery: ['shipped', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** True when PATCH may move an order from `from` to `to`; the same status is always allowed (a no-op). */
export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return from === to || ORDER_TRANSITIONS[from].includes(to);
}

/** The status_kind used when the input names none: a connection key speaks its platform's language. */
export function defaultStatusKind(connectionPlatform: 'platform_a' | 'platform_b' | null): StatusKind {
  return connectionPlatform ?? 'service';
}
