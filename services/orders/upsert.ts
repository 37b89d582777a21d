import { isConcurrencyFailure, writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../contract/errors.js';
import type { OrderInput, Order, UpsertResult } from '../../contract/schemas/orders.js';
import { parseOrderInput } from '../../contract/schemas/order-input-quick.js';
import { iso } from '../../domain/dates.js';
import { eventsForChange } from '../../domain/order-events.js';
import { orderFacts, unchangedReason, type OrderFacts } from './order-record.js';
import { presentOrder } from './present.js';
import type { OrderRow } from '../../db/tables/orders.js';
import type { NewOrderEvent, StatusLine } from './events.js';
import type { StatusKind } from '../../domain/order-status.js';
import type { OrderSender } from './sender.js';
import {
  byExternalIdOrder,
  inTransaction,
  needsPhoneHistory,
  onPool,
  readHeld,
  toRow,
  writeNewOrders,
  writeOrders,
  type PhoneHistory,
  type RunStatement,
  type VersionedRow,
  type WrittenRow,
} from './upsert-rows.js';

/** One input's result in a batch: its upsert result, or the mistake that kept it out (a result, not an error). */
export type ItemOutcome =
  { ok: true; result: UpsertResult; externalId: string } | { ok: false; externalId: string | null; message: string; param: string };

type Prepared = { index: number; facts: OrderFacts } | { index: number; outcome: ItemOutcome };

/**
 * Creates or updates orders by external id (safe to retry, races give one order). A batch is a fixed
 * number of statements whatever its size (two when nobody races it); one bad input never fails the rest.
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
    const results = await applyRound(
      em,
      sender,
      round.map((r) => r.facts),
      backfill,
    );
    for (const [i, r] of results.entries()) outcomes[round[i]!.index] = r;
  }
  return outcomes;
}

function prepare(raw: unknown, index: number, defaultKind: StatusKind): Prepared {
  const externalId = externalIdOf(raw);
  const parsed = parseOrderInput(raw);
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

// A racing request wrote the same external id between our read and our write: read again, locked.
const RETRY = Symbol('retry');
const MAX_ATTEMPTS = 3;

/**
 * Applies one round (distinct external ids). The first try is two statements on the pool, each its own
 * transaction (read the held copies, then write the rows with their events: one commit per order); a row
 * another request wrote meanwhile is not written, and it is tried again in a transaction that locks the
 * held copies first, so racing writes of one order queue up instead of failing. Inside a caller's
 * transaction every try is a locked one.
 */
async function applyRound(em: EntityManager, sender: OrderSender, round: OrderFacts[], backfill: boolean): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = new Array(round.length);
  let pending = round.map((_, i) => i);
  const tryPending = (run: RunStatement, locked: boolean) =>
    applyOnce(
      run,
      locked,
      sender,
      pending.map((i) => round[i]!),
      backfill,
    );
  // Applied once the try's transaction committed: a try that is rolled back and run again changes nothing here.
  const settle = (results: (ItemOutcome | typeof RETRY)[]) => {
    const next: number[] = [];
    for (const [j, r] of results.entries()) {
      if (r === RETRY) next.push(pending[j]!);
      else outcomes[pending[j]!] = r;
    }
    pending = next;
  };
  if (!em.isInTransaction()) {
    try {
      settle(await tryPending(onPool(em), false));
    } catch (err) {
      // A deadlock or serialization failure rolled the write back whole: the locked tries redo it.
      if (!isConcurrencyFailure(err)) throw err;
    }
  }
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`order upsert: ${pending.length} rows still racing after ${MAX_ATTEMPTS} attempts`);
    settle(await writeTransaction(em, (tx) => tryPending(inTransaction(tx), true)));
  }
  return outcomes;
}

async function applyOnce(
  run: RunStatement,
  locked: boolean,
  sender: OrderSender,
  round: OrderFacts[],
  backfill: boolean,
): Promise<(ItemOutcome | typeof RETRY)[]> {
  // First try, and no risk flag needs a phone's earlier orders: write every input as a new order, reading
  // the held copies in the same statement; only the orders found held are written again (WRITE, as after readHeld).
  if (!locked && !round.some(needsPhoneHistory)) {
    const outcomes: (ItemOutcome | typeof RETRY)[] = new Array(round.length).fill(RETRY);
    const asNew = changesOf(
      round.map((facts, index) => ({ index, facts, old: null })),
      sender,
      new Map(),
      backfill,
    );
    const { written, held } = await writeNewOrders(
      run,
      sender,
      byExternalIdOrder(asNew.writes.map((w) => w.row)),
      asNew.events,
      asNew.lines,
    );
    const rest: number[] = [];
    for (const { index, facts, row, order } of asNew.writes) {
      const stored = written.get(row.id);
      if (stored) outcomes[index] = writtenOutcome(facts, order, stored);
      // Neither written nor held: another request created the order meanwhile (RETRY: the locked try).
      else if (held.has(facts.external_id)) rest.push(index);
    }
    if (rest.length === 0) return outcomes;
    const again = await applyChanges(
      run,
      locked,
      sender,
      rest.map((i) => round[i]!),
      held,
      new Map(),
      backfill,
    );
    for (const [j, outcome] of again.entries()) outcomes[rest[j]!] = outcome;
    return outcomes;
  }
  const { held, history } = await readHeld(run, sender, round);
  return applyChanges(run, locked, sender, round, held, history, backfill);
}

/** What a round writes: each changed input's row, and the events and status history lines of those rows. */
function changesOf(
  inputs: { index: number; facts: OrderFacts; old: OrderRow | null }[],
  sender: OrderSender,
  history: Map<string, PhoneHistory>,
  backfill: boolean,
) {
  const writes = inputs.map(({ index, facts, old }) => {
    const row = {
      ...toRow(facts, old, history.get(facts.customer_phone_key ?? ''), sender),
      version: (old?.version ?? 0) + 1,
    } as VersionedRow;
    // The order as the write will leave it, its timestamps aside: its events' snapshot, and the answer.
    return { index, facts, old, row, order: presentOrder(rowAsWritten(row, old, sender), sender.publicUrl) };
  });
  // The events and history lines are decided before the write, on the row as it will be: the statement
  // keeps those of the rows it wrote, and gives each snapshot the row's created_at and updated_at.
  const events: NewOrderEvent[] = [];
  const lines: StatusLine[] = [];
  for (const { old, row, order } of writes) {
    for (const type of eventsForChange(old, row)) {
      events.push({ storeId: sender.storeId, order, type, backfill, actor: sender.actor, connectionId: sender.connectionId });
    }
    if (!old || old.status !== row.status) lines.push({ orderId: row.id, status: row.status, comment: null, actor: sender.actor });
  }
  return { writes, events, lines };
}

/** Applies the round against the held copies (and phone histories) read: unchanged inputs answer at once, the others are written. */
async function applyChanges(
  run: RunStatement,
  locked: boolean,
  sender: OrderSender,
  round: OrderFacts[],
  held: Map<string, OrderRow>,
  history: Map<string, PhoneHistory>,
  backfill: boolean,
): Promise<(ItemOutcome | typeof RETRY)[]> {
  const changed: { index: number; facts: OrderFacts; old: OrderRow | null }[] = [];
  const outcomes: (ItemOutcome | typeof RETRY)[] = round.map((facts, index) => {
    const old = held.get(facts.external_id) ?? null;
    const reason = unchangedReason(facts, old);
    // The same content from a new connection of the same shop (reconnected) still moves the order to it.
    if (old && (reason === 'stale' || (reason === 'same' && old.connection_id === sender.connectionId))) {
      return outcomeOf(facts, { order: presentOrder(old, sender.publicUrl), action: 'unchanged' });
    }
    changed.push({ index, facts, old });
    return RETRY;
  });
  if (changed.length === 0) return outcomes;

  const { writes, events, lines } = changesOf(changed, sender, history, backfill);
  const written = new Map(
    (await writeOrders(run, sender, byExternalIdOrder(writes.map((w) => w.row)), events, lines)).map((row) => [row.id, row]),
  );
  for (const { index, facts, old, row, order } of writes) {
    const stored = written.get(row.id);
    // A held copy locked, yet not written: the statement's own guard held it back (an input older than
    // the copy, to the microsecond), so it is unchanged. Otherwise another request created or changed
    // the order meanwhile, and RETRY stays.
    if (!stored && locked && old) outcomes[index] = outcomeOf(facts, { order: presentOrder(old, sender.publicUrl), action: 'unchanged' });
    else if (stored) outcomes[index] = writtenOutcome(facts, order, stored);
  }
  return outcomes;
}

/** A written row's outcome: the order as presented for its events (changesOf), with the timestamps the database gave it. */
const writtenOutcome = (facts: OrderFacts, order: Order, stored: WrittenRow) =>
  outcomeOf(facts, {
    order: { ...order, created_at: iso(stored.created_at), updated_at: iso(stored.updated_at) },
    action: stored.inserted ? 'created' : 'updated',
  });

// Stands in for the database's clock in the snapshot until the write sets created_at and updated_at.
const NOT_YET = new Date(0);

/** The orders row the write will leave (its timestamps aside): the upsert's columns, the sender's, and PATCH's as held. */
function rowAsWritten(row: VersionedRow, old: OrderRow | null, sender: OrderSender): OrderRow {
  return {
    ...row,
    store_id: sender.storeId,
    origin: sender.origin,
    source: sender.source,
    connection_id: sender.connectionId,
    status_comment: old?.status_comment ?? null,
    tracking_status_text: old?.tracking_status_text ?? null,
    created_at: NOT_YET,
    updated_at: NOT_YET,
  };
}

/** An applied input's outcome, with the warning of a status the mapping did not know. */
const outcomeOf = (facts: OrderFacts, result: UpsertResult): ItemOutcome => ({
  ok: true,
  externalId: facts.external_id,
  result: facts.status_warning ? { ...result, warning: facts.status_warning } : result,
});
