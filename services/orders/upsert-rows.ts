// The rows an upsert writes: earlier orders of a phone, the row for one input, and the one INSERT … ON CONFLICT.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { paymentMethod, resolvePaymentStatus, resolveStatus, UPSERT_COLUMNS, type OrderFacts, type UpsertRow } from './order-record.js';
import { assessCodRisk } from '../../domain/risk.js';
import { recordsetColumns } from '../../db/tables/columns.js';
import { ORDERS, type OrderRow } from '../../db/tables/orders.js';
import type { OrderSender } from './sender.js';
import { textArray } from '../../db/sql-array.js';

export type PhoneHistory = { ordersWithPhone: number; cancelledWithPhone: number };

/** Earlier orders (and cancellations) per phone, for the cash-on-delivery risk flags. */
export async function phoneHistory(tx: EntityManager, sender: OrderSender, facts: OrderFacts[]) {
  const keys = [...new Set(facts.filter((f) => f.is_cod && f.customer_phone_key).map((f) => f.customer_phone_key!))];
  const map = new Map<string, PhoneHistory>();
  if (keys.length === 0) return map;
  const rows = await tx.execute<{ k: string; n: number; c: number }[]>(
    `select customer_phone_key as k, count(*)::int as n, count(*) filter (where status = 'cancelled')::int as c
     from orders where store_id = ? and customer_phone_key = any(?::text[])
       and not (origin = ? and external_id = any(?::text[]))
     group by 1`,
    [sender.storeId, textArray(keys), sender.origin, textArray(facts.map((f) => f.external_id))],
  );
  for (const r of rows) map.set(r.k, { ordersWithPhone: r.n, cancelledWithPhone: r.c });
  return map;
}

/** The orders row for one input: status and payment resolved against the held copy, risk assessed. */
export function toRow(facts: OrderFacts, old: OrderRow | null, history: PhoneHistory | undefined, sender: OrderSender): UpsertRow {
  const status = resolveStatus(facts, old);
  const { payment_status_input: _p, delivered: _d, status: _s, status_kind: _k, status_warning: _w, archived, ...columns } = facts;
  const risk = assessCodRisk({
    isCod: facts.is_cod,
    phone: facts.customer_phone,
    country: facts.customer_country,
    address: facts.customer_address,
    city: facts.customer_city,
    total: Number(facts.total),
    currency: facts.currency,
    history: history ?? { ordersWithPhone: 0, cancelledWithPhone: 0 },
  });
  return {
    ...columns,
    id: old?.id ?? randomUUID(),
    external_number: facts.order_number,
    status,
    payment_status: resolvePaymentStatus(facts, status),
    payment_method: paymentMethod({ isCod: facts.is_cod }),
    currency: facts.currency ?? old?.currency ?? sender.storeCurrency,
    archived: archived ?? old?.archived ?? false,
    risk,
  };
}

const COLUMNS = recordsetColumns(ORDERS, UPSERT_COLUMNS);
// id, external_id and created_at stay as the first write left them.
const UPDATED = UPSERT_COLUMNS.filter((c) => c !== 'id' && c !== 'external_id' && c !== 'created_at');
const SELECTED = UPSERT_COLUMNS.map((n) => (n === 'created_at' ? `date_trunc('milliseconds', coalesce(x.created_at, now()))` : `x.${n}`));

/**
 * The INSERT … ON CONFLICT of rows from JSON, `filter` (a condition on x) choosing which. Only a held
 * (locked) row is updated: a new row carries a fresh id, so a copy another request inserted meanwhile
 * is left intact and returns nothing (re-read). A shop that connected again takes its orders over
 * (connection_id), even when their content is the same.
 */
const upsertSql = (filter: string) => `insert into orders as o (store_id, origin, source, connection_id, ${UPSERT_COLUMNS.join(', ')})
     select ?::uuid, ?, ?, ?::uuid, ${SELECTED.join(', ')} from jsonb_to_recordset(?::jsonb) as x(${COLUMNS}) where ${filter}
     on conflict (store_id, origin, external_id) where external_id is not null do update set
       ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}, connection_id = excluded.connection_id, updated_at = now(), version = o.version + 1
     where o.id = excluded.id and (o.content_hash <> excluded.content_hash or o.connection_id is distinct from excluded.connection_id)
       and (excluded.source_updated_at is null or o.source_updated_at is null or excluded.source_updated_at >= o.source_updated_at)
     returning o.*, (o.xmax = 0) as inserted`;
const WRITE_ORDERS = upsertSql('true');
// The held copies are locked first, in external_id order (two batches sharing ids cannot deadlock);
// rows whose id is held are then left out of the insert.
const LOCK_AND_INSERT_NEW = `with held as (
       select * from orders where store_id = ? and origin = ? and external_id = any(?::text[]) order by external_id for update
     ), written as (
       ${upsertSql('not exists (select 1 from held where held.external_id = x.external_id)')}
     )
     select *, false as inserted from held union all select * from written`;

type WrittenRow = OrderRow & { inserted: boolean };

/** Rows sorted by external id: the order in which the round's rows are written (and so locked). */
export const byExternalIdOrder = (rows: UpsertRow[]) => rows.sort((a, b) => (a.external_id! < b.external_id! ? -1 : 1));

/** One INSERT … ON CONFLICT for the whole round (rows of held copies, see upsertSql). */
export async function writeOrders(tx: EntityManager, sender: OrderSender, rows: UpsertRow[]) {
  return tx.execute<WrittenRow[]>(WRITE_ORDERS, [sender.storeId, sender.origin, sender.source, sender.connectionId, JSON.stringify(rows)]);
}

/**
 * One statement: locks the held copies of the rows' external ids and inserts the rows of the others
 * (built for a new order). Answers the held copies and the inserted rows apart.
 */
export async function lockAndInsertNew(tx: EntityManager, sender: OrderSender, rows: UpsertRow[]) {
  const all = await tx.execute<WrittenRow[]>(LOCK_AND_INSERT_NEW, [
    sender.storeId,
    sender.origin,
    textArray(rows.map((r) => r.external_id!)),
    sender.storeId,
    sender.origin,
    sender.source,
    sender.connectionId,
    JSON.stringify(rows),
  ]);
  const held: OrderRow[] = [];
  const inserted: WrittenRow[] = [];
  for (const row of all) (row.inserted ? inserted : held).push(row);
  return { held, inserted };
}
