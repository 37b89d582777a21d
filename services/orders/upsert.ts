import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrderInput, type UpsertResult } from '../../api/schemas/orders.js';
import { eventsForChange } from '../../domain/order-events.js';
import {
  orderFacts,
  paymentMethod,
  resolvePaymentStatus,
  resolveStatus,
  unchangedReason,
  type OrderFacts,
} from '../../domain/order-record.js';
import type { OrderSource, StatusKind } from '../../domain/order-status.js';
import { assessCodRisk } from '../../domain/risk.js';
import { presentOrder, type OrderRow } from './present.js';
import { recordOrderEvents, recordStatusHistory, type NewOrderEvent } from './events.js';

/** Who is sending orders, as decided by the key (never by the body). */
export interface OrderSender {
  storeId: string;
  storeCurrency: string;
  /** 'api' for secret keys, the connection id for a connection key: external ids are unique per origin. */
  origin: string;
  source: OrderSource;
  connectionId: string | null;
  defaultKind: StatusKind;
  actor: string;
  publicUrl: string;
}

export type ItemOutcome =
  | { ok: true; result: UpsertResult; externalId: string }
  | { ok: false; externalId: string | null; message: string; param: string };

type Prepared = { index: number; facts: OrderFacts } | { index: number; outcome: ItemOutcome };

/**
 * Creates or updates orders by external id (safe to retry, races give one order). A batch is one
 * transaction of a fixed number of statements whatever its size; one bad input never fails the rest.
 */
export async function upsertOrders(em: EntityManager, sender: OrderSender, inputs: unknown[], backfill = false): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = new Array(inputs.length);
  const ready: { index: number; facts: OrderFacts }[] = [];
  for (const p of inputs.map((raw, index) => prepare(raw, index, sender.defaultKind))) {
    if ('facts' in p) ready.push(p);
    else outcomes[p.index] = p.outcome;
  }
  // The same external id twice in one batch: later ones apply in later rounds, in input order.
  for (const round of rounds(ready)) {
    const results = await em.transactional((tx) => applyRound(tx, sender, round, backfill));
    for (const [i, r] of results.entries()) outcomes[round[i]!.index] = r;
  }
  return outcomes;
}

function prepare(raw: unknown, index: number, defaultKind: StatusKind): Prepared {
  const externalId = externalIdOf(raw);
  const parsed = OrderInput.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.join('.');
    return { index, outcome: { ok: false, externalId, message: `${param ? `${param}: ` : ''}${issue.message}`, param } };
  }
  const facts = orderFacts(parsed.data, defaultKind);
  if (!facts.ok) return { index, outcome: { ok: false, externalId, message: `${facts.param}: ${facts.message}`, param: facts.param } };
  if ('skip' in facts) return { index, outcome: { ok: true, externalId: externalId ?? '', result: { order: null, action: 'skipped', reason: facts.skip } } };
  return { index, facts: facts.facts };
}

function externalIdOf(raw: unknown): string | null {
  const id = (raw as { external_id?: unknown } | null)?.external_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

function rounds<T extends { facts: OrderFacts }>(items: T[]): T[][] {
  const out: T[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const n = seen.get(item.facts.external_id) ?? 0;
    seen.set(item.facts.external_id, n + 1);
    (out[n] ??= []).push(item);
  }
  return out;
}

async function applyRound(tx: EntityManager, sender: OrderSender, round: { facts: OrderFacts }[], backfill: boolean): Promise<ItemOutcome[]> {
  const ids = round.map((r) => r.facts.external_id);
  const heldRows = await tx.execute<OrderRow[]>(
    `select * from orders where store_id = ? and origin = ? and external_id = any(select jsonb_array_elements_text(?::jsonb)) for update`,
    [sender.storeId, sender.origin, JSON.stringify(ids)],
  );
  const held = new Map(heldRows.map((row) => [row.external_id!, row]));
  const history = await phoneHistory(tx, sender, round.map((r) => r.facts));

  const writes: Record<string, unknown>[] = [];
  const outcomes: (ItemOutcome | null)[] = round.map(({ facts }) => {
    const old = held.get(facts.external_id) ?? null;
    if (old && unchangedReason(facts, old)) {
      return { ok: true, externalId: facts.external_id, result: { order: presentOrder(old, sender.publicUrl), action: 'unchanged' } };
    }
    writes.push(toRow(facts, old, sender, history.get(facts.customer_phone_key ?? '')));
    return null;
  });

  const written = writes.length ? await writeOrders(tx, sender, writes) : [];
  const byExternalId = new Map(written.map((row) => [row.external_id!, row]));
  const events: NewOrderEvent[] = [];
  const lines: Parameters<typeof recordStatusHistory>[1] = [];
  const final = outcomes.map((outcome, i): ItemOutcome => {
    if (outcome) return outcome;
    const facts = round[i]!.facts;
    const row = byExternalId.get(facts.external_id);
    const old = held.get(facts.external_id) ?? null;
    if (!row) {
      // A racing request wrote the same content (or a newer copy) first.
      return { ok: true, externalId: facts.external_id, result: { order: old && presentOrder(old, sender.publicUrl), action: 'unchanged' } };
    }
    const order = presentOrder(row, sender.publicUrl);
    const created = row.inserted === true;
    for (const type of eventsForChange(created ? null : old, row)) {
      events.push({ storeId: sender.storeId, order, type, backfill, actor: sender.actor, connectionId: sender.connectionId });
    }
    if (created || old?.status !== row.status) lines.push({ orderId: row.id, status: row.status, comment: null, actor: sender.actor });
    return { ok: true, externalId: facts.external_id, result: { order, action: created ? 'created' : 'updated' } };
  });
  await recordStatusHistory(tx, lines);
  await recordOrderEvents(tx, events);
  return final;
}

/** Earlier orders (and cancellations) per phone, for the cash-on-delivery risk flags. */
async function phoneHistory(tx: EntityManager, sender: OrderSender, facts: OrderFacts[]) {
  const keys = [...new Set(facts.filter((f) => f.is_cod && f.customer_phone_key).map((f) => f.customer_phone_key!))];
  const map = new Map<string, { ordersWithPhone: number; cancelledWithPhone: number }>();
  if (keys.length === 0) return map;
  const rows = await tx.execute<{ k: string; n: number; c: number }[]>(
    `select customer_phone_key as k, count(*)::int as n, count(*) filter (where status = 'cancelled')::int as c
     from orders where store_id = ? and customer_phone_key = any(select jsonb_array_elements_text(?::jsonb))
       and not (origin = ? and external_id = any(select jsonb_array_elements_text(?::jsonb)))
     group by 1`,
    [sender.storeId, JSON.stringify(keys), sender.origin, JSON.stringify(facts.map((f) => f.external_id))],
  );
  for (const r of rows) map.set(r.k, { ordersWithPhone: r.n, cancelledWithPhone: r.c });
  return map;
}

function toRow(facts: OrderFacts, old: OrderRow | null, sender: OrderSender, history?: { ordersWithPhone: number; cancelledWithPhone: number }) {
  const status = resolveStatus(facts, old);
  const { payment_status_input: _p, delivered: _d, status: _s, archived, ...columns } = facts;
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
    payment_status: resolvePaymentStatus(facts, status, sender.defaultKind),
    payment_method: paymentMethod({ isCod: facts.is_cod }),
    currency: facts.currency ?? old?.currency ?? sender.storeCurrency,
    archived: archived ?? old?.archived ?? false,
    risk,
  };
}

const COLUMNS = `id uuid, external_id text, external_number text, external_status text, external_url text, order_number text,
  status text, payment_method text, payment_status text, payment_external_method text, payment_external_method_title text,
  payment_transaction_id text, payment_refunded_amount numeric, is_cod boolean, total numeric, discount numeric,
  shipping numeric, cod_fee numeric, tax numeric, currency text, customer_name text, customer_email text,
  customer_phone text, customer_phone_key text, customer_address text, customer_city text, customer_state text,
  customer_postcode text, customer_country text, items jsonb, tracking_number text, tracking_courier text,
  tracking_url text, note text, risk jsonb, archived boolean, content_hash text, source_updated_at timestamptz,
  created_at timestamptz`;
const UPDATED = `external_number, external_status, external_url, order_number, status, payment_method, payment_status,
  payment_external_method, payment_external_method_title, payment_transaction_id, payment_refunded_amount, is_cod,
  total, discount, shipping, cod_fee, tax, currency, customer_name, customer_email, customer_phone, customer_phone_key,
  customer_address, customer_city, customer_state, customer_postcode, customer_country, items, tracking_number,
  tracking_courier, tracking_url, note, risk, archived, content_hash, source_updated_at`
  .split(',')
  .map((c) => c.trim());

/** One INSERT … ON CONFLICT for the whole round; the WHERE keeps a racing or newer copy intact. */
async function writeOrders(tx: EntityManager, sender: OrderSender, rows: Record<string, unknown>[]) {
  const names = COLUMNS.split(',').map((c) => c.trim().split(' ')[0]!);
  const select = names.map((n) => (n === 'created_at' ? `date_trunc('milliseconds', coalesce(x.created_at, now()))` : `x.${n}`));
  return tx.execute<(OrderRow & { inserted: boolean })[]>(
    `insert into orders as o (store_id, origin, source, connection_id, ${names.join(', ')})
     select ?::uuid, ?, ?, ?::uuid, ${select.join(', ')} from jsonb_to_recordset(?::jsonb) as x(${COLUMNS})
     on conflict (store_id, origin, external_id) where external_id is not null do update set
       ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = now(), version = o.version + 1
     where o.content_hash <> excluded.content_hash
       and (excluded.source_updated_at is null or o.source_updated_at is null or excluded.source_updated_at >= o.source_updated_at)
     returning o.*, (o.xmax = 0) as inserted`,
    [sender.storeId, sender.origin, sender.source, sender.connectionId, JSON.stringify(rows)],
  );
}
