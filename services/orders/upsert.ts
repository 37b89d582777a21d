import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../contract/errors.js';
import { OrderInput, type UpsertResult } from '../../contract/schemas/orders.js';
import { eventsForChange } from '../../domain/order-events.js';
import { orderFacts, unchangedReason, type OrderFacts, type UpsertRow } from './order-record.js';
import { presentOrder } from './present.js';
import type { OrderRow } from '../../db/tables/orders.js';
import { recordOrderEvents, type NewOrderEvent, type StatusLine } from './events.js';
import type { StatusKind } from '../../domain/order-status.js';
import type { OrderSender } from './sender.js';
import { byExternalIdOrder, lockAndInsertNew, phoneHistory, toRow, writeOrders } from './upsert-rows.js';

/** One input's result in a batch: its upsert result, or the mistake that kept it out (a result, not an error). */
export type ItemOutcome =
  { ok: true; result: UpsertResult; externalId: string } | { ok: false; externalId: string | null; message: string; param: string };

type Prepared = { index: number; facts: OrderFacts } | { index: number; outcome: ItemOutcome };

/**
 * Creates or updates orders by external id (safe to retry, races give one order). A batch is one
 * transaction of a fixed number of statements whatever its size; one bad input never fails the rest.
 */
export async function upsertOrders(em: EntityManager, sender: OrderSender, inputs: unknown[], backfill = false): Promise<ItemOutcome[]> {
  return applyPrepared(
    em,
    sender,
    inputs.map((raw, index) => prepare(raw, index, sender.defaultKind)),
    backfill,
  );
}

/** Creates or updates one order, as upsertOrders does, from an input already validated against OrderInput; a client's mistake is an ApiError. */
export async function upsertOrder(em: EntityManager, sender: OrderSender, input: OrderInput): Promise<UpsertResult> {
  const [outcome] = await applyPrepared(em, sender, [prepareValid(input, 0, sender.defaultKind, externalIdOf(input))], false);
  if (!outcome!.ok) throw new ApiError('invalid_request', outcome!.message, outcome!.param);
  return outcome!.result;
}

async function applyPrepared(em: EntityManager, sender: OrderSender, prepared: Prepared[], backfill: boolean): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = new Array(prepared.length);
  const ready: { index: number; facts: OrderFacts }[] = [];
  for (const p of prepared) {
    if ('facts' in p) ready.push(p);
    else outcomes[p.index] = p.outcome;
  }
  // The same external id twice in one batch: later ones apply in later rounds, in input order.
  for (const round of rounds(ready)) {
    const results = await writeTransaction(em, (tx) => applyRound(tx, sender, round, backfill));
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
  try {
    return prepareValid(parsed.data, index, defaultKind, externalId);
  } catch (err) {
    // In a batch, one input's mistake is that input's result; the others go on.
    if (err instanceof ApiError) return { index, outcome: { ok: false, externalId, message: err.message, param: err.param ?? '' } };
    throw err;
  }
}

function prepareValid(input: OrderInput, index: number, defaultKind: StatusKind, externalId: string | null): Prepared {
  const facts = orderFacts(input, defaultKind);
  if ('skip' in facts)
    return { index, outcome: { ok: true, externalId: externalId ?? '', result: { order: null, action: 'skipped', reason: facts.skip } } };
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

// A racing request inserted the same external id between our read and our write: read again.
const RETRY = Symbol('retry');
const MAX_ATTEMPTS = 3;

/** Applies one round (distinct external ids) in the caller's transaction; a lost insert race is re-read and re-applied. */
async function applyRound(
  tx: EntityManager,
  sender: OrderSender,
  round: { facts: OrderFacts }[],
  backfill: boolean,
): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = new Array(round.length);
  let pending = round.map((_, i) => i);
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`order upsert: ${pending.length} rows still racing after ${MAX_ATTEMPTS} attempts`);
    const results = await applyOnce(
      tx,
      sender,
      pending.map((i) => round[i]!.facts),
      backfill,
    );
    const next: number[] = [];
    for (const [j, r] of results.entries()) {
      if (r === RETRY) next.push(pending[j]!);
      else outcomes[pending[j]!] = r;
    }
    pending = next;
  }
  return outcomes;
}

async function applyOnce(
  tx: EntityManager,
  sender: OrderSender,
  round: OrderFacts[],
  backfill: boolean,
): Promise<(ItemOutcome | typeof RETRY)[]> {
  const history = await phoneHistory(tx, sender, round);
  const rowFor = (facts: OrderFacts, old: OrderRow | null) => toRow(facts, old, history.get(facts.customer_phone_key ?? ''), sender);
  // Held copies are locked and ids nobody holds are inserted (rows for a new order) in one statement.
  const { held: heldRows, inserted } = await lockAndInsertNew(tx, sender, byExternalIdOrder(round.map((facts) => rowFor(facts, null))));
  const held = new Map(heldRows.map((row) => [row.external_id!, row]));

  const writes: UpsertRow[] = [];
  const outcomes: (ItemOutcome | null)[] = round.map((facts) => {
    const old = held.get(facts.external_id) ?? null;
    const reason = unchangedReason(facts, old);
    // The same content from a new connection of the same shop (reconnected) still moves the order to it.
    if (old && (reason === 'stale' || (reason === 'same' && old.connection_id === sender.connectionId))) {
      return outcomeOf(facts, { order: presentOrder(old, sender.publicUrl), action: 'unchanged' });
    }
    if (old) writes.push(rowFor(facts, old));
    return null;
  });

  const written = writes.length ? [...inserted, ...(await writeOrders(tx, sender, byExternalIdOrder(writes)))] : inserted;
  const byExternalId = new Map(written.map((row) => [row.external_id!, row]));
  const events: NewOrderEvent[] = [];
  const lines: StatusLine[] = [];
  const final = outcomes.map((outcome, i): ItemOutcome | typeof RETRY => {
    if (outcome) return outcome;
    const facts = round[i]!;
    const row = byExternalId.get(facts.external_id);
    const old = held.get(facts.external_id) ?? null;
    if (!row) {
      // Not held when locked, yet present at the insert: another request created it meanwhile.
      if (!old) return RETRY;
      return outcomeOf(facts, { order: presentOrder(old, sender.publicUrl), action: 'unchanged' });
    }
    const order = presentOrder(row, sender.publicUrl);
    const created = row.inserted === true;
    for (const type of eventsForChange(created ? null : old, row)) {
      events.push({ storeId: sender.storeId, order, type, backfill, actor: sender.actor, connectionId: sender.connectionId });
    }
    if (created || old?.status !== row.status) lines.push({ orderId: row.id, status: row.status, comment: null, actor: sender.actor });
    return outcomeOf(facts, { order, action: created ? 'created' : 'updated' });
  });
  await recordOrderEvents(tx, events, lines);
  return final;
}

/** An applied input's outcome, with the warning of a status the mapping did not know. */
const outcomeOf = (facts: OrderFacts, result: UpsertResult): ItemOutcome => ({
  ok: true,
  externalId: facts.external_id,
  result: facts.status_warning ? { ...result, warning: facts.status_warning } : result,
});
