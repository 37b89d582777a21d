import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { formatMoney, toUnits } from '../../domain/money.js';
import type { StorePlan } from '../../domain/store.js';
import type { StoreRow } from '../../db/entities/store.js';
import type { OrderRow } from '../../db/tables/orders.js';

/** What a notification says about a new order, read when it is sent. */
export interface OrderFacts {
  storeName: string;
  plan: StorePlan;
  /** When a paid plan ends (null: it does not); the plan in force is read with effectivePlan. */
  paidUntil: Date | null;
  /** The number people know: the order number, else the outside number, else the id's start. */
  number: string;
  /** e.g. "1,250.00 MAD". */
  total: string;
  customerName: string | null;
  customerPhone: string | null;
}

/** The order and its store as a notification needs them; null when the order is gone. */
export async function orderFacts(em: EntityManager, storeId: string, orderId: string): Promise<OrderFacts | null> {
  const [row] = await executeBound<
    Pick<StoreRow, 'name' | 'plan' | 'paid_until'> &
      Pick<OrderRow, 'order_number' | 'external_number' | 'total' | 'currency' | 'customer_name' | 'customer_phone'>
  >(
    em,
    `select s.name, s.plan, s.paid_until, o.order_number, o.external_number, o.total::text as total, o.currency, o.customer_name, o.customer_phone
     from orders o join stores s on s.id = o.store_id where o.id = ? and o.store_id = ?`,
    [orderId, storeId],
  );
  if (!row) return null;
  const number = row.order_number ?? row.external_number ?? orderId.slice(0, 8);
  return {
    storeName: row.name,
    plan: row.plan,
    // pg may hand the timestamp back as text (db/tables/columns.ts timestamptz): OrderFacts promises a Date.
    paidUntil: row.paid_until === null ? null : new Date(row.paid_until),
    number: number.startsWith('#') ? number : `#${number}`,
    total: formatMoney(toUnits(row.total), row.currency),
    customerName: row.customer_name,
    customerPhone: row.customer_phone,
  };
}
