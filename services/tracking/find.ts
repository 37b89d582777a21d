import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { numbered, prepared, runPrepared } from '../../db/prepared.js';
import type { OrderRow } from '../../db/tables/orders.js';
import type { OrderStatus } from '../../domain/order-status.js';
import { orderNumberLockKey, orderNumberVariants } from '../../domain/tracking-contact.js';
import { showsTrackingBadge } from '../../domain/plan.js';
import type { StorePlan } from '../../domain/store.js';
import { isUuid } from '../../domain/uuid.js';
import type { StoreRow } from '../../db/entities/store.js';

/** An order as tracking reads it: the shown facts, the contact to check (never shown), its store's name. */
export type TrackingRow = Pick<
  OrderRow,
  | 'id'
  | 'store_id'
  | 'source'
  | 'order_number'
  | 'status'
  | 'status_comment'
  | 'items'
  | 'total'
  | 'shipping'
  | 'cod_fee'
  | 'is_cod'
  | 'currency'
  | 'tracking_number'
  | 'tracking_courier'
  | 'tracking_url'
  | 'tracking_status_text'
  | 'created_at'
  | 'updated_at'
> & {
  phone: OrderRow['customer_phone'];
  email: OrderRow['customer_email'];
  store_name: string;
  /** The store's plan record, for the pages' badge (never shown, never in the API's answer). */
  store_plan: StorePlan;
  store_paid_until: Date | string | null;
  history: { status: OrderStatus; comment: string | null; created_at: string }[];
};

const SELECT = `select o.id, o.store_id, o.source, o.order_number, o.status, o.status_comment, o.items, o.total, o.shipping,
    o.cod_fee, o.is_cod, o.currency, o.tracking_number, o.tracking_courier, o.tracking_url, o.tracking_status_text,
    o.created_at, o.updated_at, o.customer_phone as phone, o.customer_email as email, s.name as store_name, s.plan as store_plan, s.paid_until as store_paid_until,
    coalesce((select json_agg(json_build_object('status', h.status, 'comment', h.comment, 'created_at', h.created_at) order by h.id)
      from (select id, status, comment, created_at from order_status_history where order_id = o.id order by id desc limit 100) h), '[]'::json) as history`;

const LOCK = `(select ceil(extract(epoch from l.locked_until - now()))::int from tracking_lockouts l
    where l.store_id = ?::uuid and l.order_key = ? and l.locked_until > now())`;

/** The lockout key of an order: its number's lock key (the same for every spelling that finds it), or its id when it has no number. */
export const lockoutKeyOf = (row: Pick<TrackingRow, 'id' | 'order_number'>) =>
  row.order_number ? orderNumberLockKey(row.order_number) : row.id;

const BY_NUMBER = prepared(
  numbered(`${SELECT}, ${LOCK} as retry_after
     from orders o join stores s on s.id = o.store_id
     where o.store_id = ? and o.order_number in (?, ?) and not o.archived
     order by o.created_at desc, o.id desc limit 20`),
);

/**
 * The live (not archived) orders of a store carrying a number, newest first, with the seconds left of
 * a running lockout of that number (null when none). The lock is read under orderNumberLockKey, the key
 * wrong tries of every matched order are counted under (lockoutKeyOf), so no spelling escapes it.
 * One round trip, prepared (db/prepared.ts).
 */
export async function findByNumber(
  em: EntityManager,
  storeId: string,
  key: string,
): Promise<{ rows: TrackingRow[]; retryAfter: number | null }> {
  const rows = await runPrepared<TrackingRow & { retry_after: number | null }>(em, BY_NUMBER, [
    storeId,
    orderNumberLockKey(key),
    storeId,
    ...orderNumberVariants(key),
  ]);
  return { rows, retryAfter: rows[0]?.retry_after ?? null };
}

// The order's tracking page: prepared like BY_NUMBER.
const BY_ID = prepared(`${SELECT} from orders o join stores s on s.id = o.store_id where o.id = $1 and not o.archived`);

/** One live order by its id (the tracking page's address), with the seconds left of a running lockout of its number. */
export async function findById(em: EntityManager, orderId: string): Promise<{ row: TrackingRow | null; retryAfter: number | null }> {
  if (!isUuid(orderId)) return { row: null, retryAfter: null };
  const [row] = await runPrepared<TrackingRow>(em, BY_ID, [orderId]);
  if (!row) return { row: null, retryAfter: null };
  return { row, retryAfter: await runningLockout(em, row.store_id, lockoutKeyOf(row)) };
}

/** The seconds left of a running lockout of an order key in a store, or null when none runs. */
export async function runningLockout(em: EntityManager, storeId: string, orderKey: string): Promise<number | null> {
  const [lock] = await executeBound<{ retry_after: number | null }>(em, `select ${LOCK} as retry_after`, [storeId, orderKey]);
  return lock?.retry_after ?? null;
}

/** A store's id and name by its slug (the store's tracking page), and whether its pages carry the badge; or null. */
export async function findStoreBySlug(
  em: EntityManager,
  slug: string,
): Promise<{ id: string; name: string; trackingBadge: boolean } | null> {
  const [store] = await executeBound<Pick<StoreRow, 'id' | 'name' | 'plan' | 'paid_until'>>(
    em,
    `select id, name, plan, paid_until from stores where slug = ?`,
    [slug],
  );
  if (!store) return null;
  return { id: store.id, name: store.name, trackingBadge: showsTrackingBadge({ plan: store.plan, paidUntil: store.paid_until }) };
}
