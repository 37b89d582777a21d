import { writeTransaction } from '../../db/transaction.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { ApiError } from '../../contract/errors.js';
import type { TrackingResult } from '../../contract/schemas/tracking.js';
import { showsTrackingBadge } from '../../domain/plan.js';
import { orderNumberKey } from '../../domain/tracking-contact.js';
import { decideTracking } from '../../domain/tracking-decision.js';
import { findById, findByNumber, lockoutKeyOf, runningLockout, type TrackingRow } from './find.js';
import { recordWrongTry, type LockoutRule } from './lockout.js';
import { presentTracking } from './present.js';

/**
 * Every answer but a found order takes at least this long: a wrong contact, close or far, a missing one,
 * a locked or an unknown order all leave at the same moment, whatever the database took.
 */
export const TRACKING_FAILURE_FLOOR_MS = 100;

/** A found order: the spec's tracking result, the order's id (for the pages' link), and whether its pages carry the badge. */
export interface TrackingFound {
  result: TrackingResult;
  orderId: string;
  trackingBadge: boolean;
}

export type TrackingRefusal = 'not_found' | 'contact_missing' | 'contact_wrong' | 'locked';

/** The API's error of each refusal; every one carries the same words whatever the order holds. */
function refusalError(reason: TrackingRefusal, retryAfter: number | null): ConstructorParameters<typeof ApiError> {
  switch (reason) {
    case 'not_found':
      return ['not_found', 'No order with this number in this store.'];
    case 'contact_missing':
      return ['unprocessable', 'This order needs a contact: the last 4 digits of the phone number on the order, or its email.', 'contact'];
    case 'contact_wrong':
      return ['unprocessable', 'The contact does not match this order.', 'contact'];
    case 'locked':
      return [
        'rate_limited',
        `Too many wrong contacts for this order; retry in ${retryAfter} seconds.`,
        undefined,
        { 'retry-after': String(retryAfter) },
      ];
  }
}

/**
 * A lookup that does not show the order: the API's error (404, 422 contact, 429 with Retry-After), and
 * what the pages need besides: the reason, the store's name whenever the number exists (for their
 * heading, never the API), the seconds a lockout has left.
 */
export class TrackingRefused extends ApiError {
  constructor(
    readonly reason: TrackingRefusal,
    readonly storeName: string | null,
    readonly retryAfter: number | null = null,
    /** Whether the store's pages carry the badge (false when no order, so no store, was found). */
    readonly trackingBadge = false,
  ) {
    super(...refusalError(reason, retryAfter));
  }
}

/** A lookup by the number a shopper typed, in one store (GET /tracking and the store's tracking page); TrackingRefused when it does not show the order. */
export async function trackByNumber(
  em: EntityManager,
  rule: LockoutRule,
  storeId: string,
  typed: string,
  contact: string | undefined,
): Promise<TrackingFound> {
  const started = performance.now();
  const key = orderNumberKey(typed);
  const { rows, retryAfter } = await findByNumber(em, storeId, key);
  return settle(em, rule, started, rows, contact, retryAfter);
}

/** A lookup by order id (the order's tracking page); the same contact rules, lockout and refusals as by number. */
export async function trackById(
  em: EntityManager,
  rule: LockoutRule,
  orderId: string,
  contact: string | undefined,
): Promise<TrackingFound> {
  const started = performance.now();
  const { row, retryAfter } = await findById(em, orderId);
  return settle(em, rule, started, row ? [row] : [], contact, retryAfter);
}

async function settle(
  em: EntityManager,
  rule: LockoutRule,
  started: number,
  rows: TrackingRow[],
  contact: string | undefined,
  retryAfter: number | null,
): Promise<TrackingFound> {
  const decision =
    rows.length > 0 && contact !== undefined && retryAfter === null
      ? await compareUnderLock(em, rule, rows, contact)
      : decideTracking(rows, contact, retryAfter === null ? null : { retryAfter });
  if (decision.kind === 'found') {
    return { result: presentTracking(decision.order), orderId: decision.order.id, trackingBadge: badgeOf(decision.order) };
  }
  const left = TRACKING_FAILURE_FLOOR_MS - (performance.now() - started);
  if (left > 0) await sleep(left);
  if (decision.kind === 'not_found') throw new TrackingRefused('not_found', null);
  throw new TrackingRefused(decision.kind, rows[0]!.store_name, decision.kind === 'locked' ? decision.retryAfter : null, badgeOf(rows[0]!));
}

/**
 * Compares a contact under the order number's lock: the lockout is read again, the contact compared and a
 * wrong one counted in one transaction that holds a transaction-level advisory lock on (store, order key),
 * so concurrent tries of one number take turns. Once a wrong try reaches the maximum, every later one (the
 * right contact too) finds the lockout and is refused without being compared: a burst of guesses gets
 * exactly `maxWrong` comparisons, whatever the number of clients sending them.
 */
async function compareUnderLock(em: EntityManager, rule: LockoutRule, rows: TrackingRow[], contact: string) {
  // Every order sharing the number shares one counter: the lockout is per store and order number.
  const storeId = rows[0]!.store_id;
  const orderKey = lockoutKeyOf(rows[0]!);
  return writeTransaction(em, async (tx) => {
    await executeBound(tx, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`tracking-lockout/${storeId}/${orderKey}`]);
    const retryAfter = await runningLockout(tx, storeId, orderKey);
    const decision = decideTracking(rows, contact, retryAfter === null ? null : { retryAfter });
    if (decision.kind === 'contact_wrong') await recordWrongTry(tx, storeId, orderKey, rule);
    return decision;
  });
}

const badgeOf = (row: TrackingRow) => showsTrackingBadge({ plan: row.store_plan, paidUntil: row.store_paid_until });
