// The statements of an order write: one read (the held copies, the phones' history), one write (the rows, their events and history).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { paymentMethod, resolvePaymentStatus, resolveStatus, UPSERT_COLUMNS, type OrderFacts, type UpsertRow } from './order-record.js';
import { assessCodRisk } from '../../domain/risk.js';
import { recordsetColumns, rowAsJson } from '../../db/tables/columns.js';
import { ORDERS, type OrderRow } from '../../db/tables/orders.js';
import type { OrderSender } from './sender.js';
import { executeBound } from '../../db/bound.js';
import { numbered, prepared, runPrepared, type Prepared } from '../../db/prepared.js';
import { eventWritesCtes, eventWritesValues, quietEventWritesValues, STORE_SENDS, type NewOrderEvent, type StatusLine } from './events.js';
import { isQuietStore, noteStoreSends } from './quiet-stores.js';

export type PhoneHistory = { ordersWithPhone: number; cancelledWithPhone: number };

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
/**
 * A held copy, whole, as one jsonb column `o` (rowAsJson): the answers below mix it with rows of other shapes.
 * A prepared statement never selects `*` (a migration adding a column would change its answer's type and
 * break it); one jsonb column stays one jsonb column.
 */
const HELD_ROW = rowAsJson(ORDERS, 'o');
// id, external_id and created_at stay as the first write left them.
const UPDATED = UPSERT_COLUMNS.filter((c) => c !== 'id' && c !== 'external_id' && c !== 'created_at');
const SELECTED = UPSERT_COLUMNS.map((n) => (n === 'created_at' ? `date_trunc('milliseconds', coalesce(x.created_at, now()))` : `x.${n}`));

/** Rows sorted by external id: the order in which the round's rows are written (and so locked). */
export const byExternalIdOrder = <T extends { external_id: string | null }>(rows: T[]) =>
  rows.sort((a, b) => (a.external_id! < b.external_id! ? -1 : 1));

/**
 * One statement: the held copies of the round's external ids, and the earlier orders (and
 * cancellations) of its cash-on-delivery phones, for the risk flags, other than the round's own.
 * The phones are counted one index look-up each (a lateral join on the list): written as
 * `customer_phone_key = any(list) group by` PostgreSQL scanned all of the store's phone keys, even for an
 * empty list (1.3 ms a write in a store of 12,000 orders, more than the write itself). No phone, no scan.
 * PostgreSQL plans a prepared statement anew with the values while that looks cheaper than its kept
 * plan, and here it always did (1,269 plans for 1,264 calls, 0.65 ms each): it sized an array value
 * exactly, and it estimated a small or new store's rows from the store id. So the values it must not
 * plan with are hidden from it: the lists (external ids, phones) come as JSON arrays, sized the same with
 * or without values, and the store id through a sub-select; the kept plan then wins after a few calls.
 */
const READ_HELD = prepared(
  numbered(`select ${HELD_ROW} as held, null::text as phone_key, null::int as with_phone, null::int as cancelled_with_phone
     from orders o where store_id = (select ?::uuid) and origin = ? and external_id in (select jsonb_array_elements_text(?::jsonb))
   union all
   select null, phone.key, counted.with_phone, counted.cancelled_with_phone
     from jsonb_array_elements_text(?::jsonb) as phone(key)
     cross join lateral (
       select count(*)::int as with_phone, count(*) filter (where status = 'cancelled')::int as cancelled_with_phone
       from orders where store_id = (select ?::uuid) and customer_phone_key = phone.key and not (origin = ? and external_id in (select jsonb_array_elements_text(?::jsonb)))
     ) as counted
     where counted.with_phone > 0`),
);
/** In a transaction, the held copies are locked first, in external_id order (two batches sharing ids cannot deadlock). */
const LOCK_HELD = `select 1 from orders where store_id = ? and origin = ? and external_id in (select jsonb_array_elements_text(?::jsonb)) order by external_id for update`;

type ReadRow = { held: OrderRow | null; phone_key: string | null; with_phone: number | null; cancelled_with_phone: number | null };

/** Runs one of this module's statements: prepared on the pool, or bound in the caller's transaction. */
export type RunStatement = <T>(statement: Prepared, values: unknown[]) => Promise<T[]>;

/** Statements on the ORM's pool, each its own transaction, prepared: the write path of an order nobody else is writing. */
export const onPool =
  (em: EntityManager): RunStatement =>
  (statement, values) =>
    runPrepared(em, statement, values);

/** Statements in the transaction of `tx`, after locking the held copies: the path of a write that lost a race. */
export const inTransaction =
  (tx: EntityManager): RunStatement =>
  async (statement, values) => {
    if (statement === READ_HELD) await executeBound(tx, LOCK_HELD, values.slice(0, 3));
    return executeBound(tx, statement.text, values);
  };

/** The held copies of the round's external ids, and the phone history of its cash-on-delivery inputs. */
export async function readHeld(run: RunStatement, sender: OrderSender, facts: OrderFacts[]) {
  const externalIds = JSON.stringify(facts.map((f) => f.external_id));
  const phones = [...new Set(facts.filter((f) => f.is_cod && f.customer_phone_key).map((f) => f.customer_phone_key!))];
  const rows = await run<ReadRow>(READ_HELD, [
    sender.storeId,
    sender.origin,
    externalIds,
    JSON.stringify(phones),
    sender.storeId,
    sender.origin,
    externalIds,
  ]);
  const held = new Map<string, OrderRow>();
  const history = new Map<string, PhoneHistory>();
  for (const { held: row, phone_key, with_phone, cancelled_with_phone } of rows) {
    if (row) held.set(row.external_id!, row);
    else history.set(phone_key!, { ordersWithPhone: with_phone!, cancelledWithPhone: cancelled_with_phone! });
  }
  return { held, history };
}

/** A row to write: the upsert's columns and the version it will have (the held copy's + 1, or 1 for a new order). */
export type VersionedRow = UpsertRow & { version: number };
/**
 * What the write decided of a row it wrote: the rest is the row as sent (upsert.ts rowAsWritten), so the
 * statement returns four columns, not the whole order (its 50 columns cost the API more to read than the
 * rest of the answer).
 */
export type WrittenRow = Pick<OrderRow, 'id' | 'created_at' | 'updated_at'> & { inserted: boolean };

/**
 * A write's CTEs (no leading `with`), `?` placeholders: `store_sends`, `written` (the rows, on conflict as
 * given), then their events. `quiet`: the events' quiet list (eventWritesCtes), and no row is written when
 * the store has something to send after all (a webhook endpoint added since this process last looked).
 */
const writtenCtes = (onConflict: string, quiet: boolean) => `${STORE_SENDS}, written as (
     insert into orders as o (store_id, origin, source, connection_id, ${UPSERT_COLUMNS.join(', ')}, version)
     select ?::uuid, ?, ?, ?::uuid, ${SELECTED.join(', ')}, x.version from jsonb_to_recordset(?::jsonb) as x(${COLUMNS}, version integer)
     ${quiet ? 'where not (select sends from store_sends)' : ''}
     on conflict (store_id, origin, external_id) where external_id is not null ${onConflict}
     returning o.id, o.created_at, o.updated_at, o.items, (o.xmax = 0) as inserted
   ), ${eventWritesCtes('written', quiet)}`;

/** The values of writtenCtes' `?`, in order: the store (STORE_SENDS), the sender's columns, the rows (JSON), then their events'. */
const writtenValues = (sender: OrderSender, rows: VersionedRow[], events: NewOrderEvent[], lines: StatusLine[], quiet: boolean) => [
  sender.storeId,
  sender.storeId,
  sender.storeId,
  sender.storeId,
  sender.origin,
  sender.source,
  sender.connectionId,
  JSON.stringify(rows),
  ...(quiet ? quietEventWritesValues(events, lines) : eventWritesValues(events, lines, true)),
];

/**
 * The statement's row of kind 'store': whether the store has something to send (store_sends), and, in the full
 * statement, the count of `notified` (reading it sends the NOTIFYs). Every write ends with it.
 */
const storeRow = (quiet: boolean, columns: string[]) =>
  `select 'store' as kind, ${columns.join(', ')}, (select sends from store_sends) as sends, ${quiet ? 'null::int' : '(select count(*) from notified)::int'} as notified`;

/** A statement in its two variants: for any store, and for a quiet one (services/orders/quiet-stores.ts). */
const bothVariants = (text: (quiet: boolean) => string) => ({
  full: prepared(numbered(text(false))),
  quiet: prepared(numbered(text(true))),
});

/**
 * Runs a write in the variant the store's last write called for, and notes what this one found. A quiet
 * write that found the store sending wrote nothing: the full one runs. The store's row (storeRow) is taken off.
 */
async function runWrite<T extends { kind: string }>(
  run: RunStatement,
  statement: { full: Prepared; quiet: Prepared },
  storeId: string,
  values: (quiet: boolean) => unknown[],
): Promise<T[]> {
  const quiet = isQuietStore(storeId);
  const rows = await run<T & { sends: boolean | null }>(quiet ? statement.quiet : statement.full, values(quiet));
  const sends = rows.find((r) => r.kind === 'store')!.sends!;
  noteStoreSends(storeId, sends);
  if (quiet && sends) return runWrite(run, statement, storeId, values);
  return rows.filter((r) => r.kind !== 'store');
}

/**
 * The order write, one statement: the INSERT … ON CONFLICT of the rows (JSON), then their events,
 * status history, notices and the dispatcher's wake-up (services/orders/events.ts), only for the rows
 * written. A new row carries a fresh id, so a copy another request inserted meanwhile is left intact;
 * a held row is updated only at the version that was read (the `version` of the row is that + 1):
 * a row changed meanwhile is not written either. Rows not written are not returned (read again); a row
 * written is returned as its id, timestamps and whether it was inserted.
 * A shop that connected again takes its orders over (connection_id), even when their content is the same.
 */
const WRITE = bothVariants(
  (quiet) => `with ${writtenCtes(
    `do update set
       ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}, connection_id = excluded.connection_id, updated_at = now(), version = excluded.version
     where o.id = excluded.id and o.version + 1 = excluded.version
       and (o.content_hash <> excluded.content_hash or o.connection_id is distinct from excluded.connection_id)
       and (excluded.source_updated_at is null or o.source_updated_at is null or excluded.source_updated_at >= o.source_updated_at)`,
    quiet,
  )}
   select 'written' as kind, id, created_at, updated_at, inserted, null::boolean as sends, null::int as notified from written
   union all ${storeRow(quiet, ['null::uuid', 'null::timestamptz', 'null::timestamptz', 'null::boolean'])}`,
);

/** Writes the round's rows (sorted by external id: byExternalIdOrder) with their events and history lines; answers the rows written. */
export async function writeOrders(
  run: RunStatement,
  sender: OrderSender,
  rows: VersionedRow[],
  events: NewOrderEvent[],
  lines: StatusLine[],
): Promise<WrittenRow[]> {
  const written = await runWrite<WrittenRow & { kind: string; sends?: unknown; notified?: unknown }>(run, WRITE, sender.storeId, (quiet) =>
    writtenValues(sender, rows, events, lines, quiet),
  );
  return written.map(({ id, created_at, updated_at, inserted }) => ({ id, created_at, updated_at, inserted }));
}

/** True when the risk flags of this input need the earlier orders of its phone (readHeld counts them). */
export const needsPhoneHistory = (facts: OrderFacts) => Boolean(facts.is_cod && facts.customer_phone_key);

/**
 * WRITE for rows made as new orders (version 1, a fresh id) without reading first, and, in the same
 * statement, the held copies of the round's external ids as they were before it: a new order is then one
 * statement, and an order that exists costs what it did (this read, then WRITE). The insert leaves a held
 * copy alone (on conflict do nothing: no lock, no WAL, so no flush to disk at commit for an order that
 * exists), and `held` reads the statement's snapshot, taken before the insert. The two kinds of row share one shape:
 * its kind, a written row's id, timestamps and whether it was inserted, and a held copy whole as jsonb.
 */
const WRITE_AS_NEW = bothVariants(
  (quiet) => `with held as (
     select ${HELD_ROW} as held from orders o
     where store_id = (select ?::uuid) and origin = ? and external_id in (select jsonb_array_elements_text(?::jsonb))
   ), ${writtenCtes('do nothing', quiet)}
   select 'written' as kind, w.id, w.created_at, w.updated_at, w.inserted, null::jsonb as held, null::boolean as sends, null::int as notified
   from written w
   union all
   select 'held', null, null, null, false, h.held, null, null from held h
   union all
   ${storeRow(quiet, ['null::uuid', 'null::timestamptz', 'null::timestamptz', 'false', 'null::jsonb'])}`,
);

/** writeNewOrders' answer: the rows it wrote (inserted, all of them), and the held copies it found instead. */
export interface NewOrdersWrite {
  written: Map<string, WrittenRow>;
  held: Map<string, OrderRow>;
}

/** Writes the round's rows as new orders (see WRITE_AS_NEW), with their events and history lines, in one statement. */
export async function writeNewOrders(
  run: RunStatement,
  sender: OrderSender,
  rows: VersionedRow[],
  events: NewOrderEvent[],
  lines: StatusLine[],
): Promise<NewOrdersWrite> {
  const externalIds = JSON.stringify(rows.map((r) => r.external_id));
  const answer = await runWrite<WrittenRow & { kind: string; held: OrderRow | null }>(run, WRITE_AS_NEW, sender.storeId, (quiet) => [
    sender.storeId,
    sender.origin,
    externalIds,
    ...writtenValues(sender, rows, events, lines, quiet),
  ]);
  const result: NewOrdersWrite = { written: new Map(), held: new Map() };
  for (const { kind, id, created_at, updated_at, inserted, held } of answer) {
    if (kind === 'written') result.written.set(id, { id, created_at, updated_at, inserted });
    else result.held.set(held!.external_id!, held!);
  }
  return result;
}
