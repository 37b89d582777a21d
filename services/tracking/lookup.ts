import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TrackingResult } from '../../contract/schemas/tracking.js';
import { orderNumberKey } from '../../domain/tracking-contact.js';
import { decideTracking } from '../../domain/tracking-decision.js';
import { findById, findByNumber, lockoutKeyOf, type TrackingRow } from './find.js';
import { recordWrongTry, type LockoutRule } from './lockout.js';
import { presentTracking } from './present.js';

/**
 * Every answer but a found order takes at least this long: a wrong contact, close or far, a missing one,
 * a locked or an unknown order all leave at the same moment, whatever the database took.
 */
export const TRACKING_FAILURE_FLOOR_MS = 100;

/** What a lookup came to; storeName (for the pages' heading, never the API) whenever the number exists. */
export type TrackingOutcome =
  | { kind: 'found'; result: TrackingResult; orderId: string }
  | { kind: 'not_found' }
  | { kind: 'locked'; retryAfter: number; storeName: string }
  | { kind: 'contact_missing'; storeName: string }
  | { kind: 'contact_wrong'; storeName: string };

/** A lookup by the number a shopper typed, in one store (GET /tracking and the store's tracking page). */
export async function trackByNumber(em: EntityManager, rule: LockoutRule, storeId: string, typed: string, contact: string | undefined): Promise<TrackingOutcome> {
  const started = performance.now();
  const key = orderNumberKey(typed);
  const { rows, retryAfter } = await findByNumber(em, storeId, key);
  return settle(em, rule, started, rows, contact, retryAfter);
}

/** A lookup by order id (the order's tracking page); the same contact rules and lockout as by number. */
export async function trackById(em: EntityManager, rule: LockoutRule, orderId: string, contact: string | undefined): Promise<TrackingOutcome> {
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
): Promise<TrackingOutcome> {
  const decision = decideTracking(rows, contact, retryAfter === null ? null : { retryAfter });
  if (decision.kind === 'found') {
    return { kind: 'found', result: presentTracking(decision.order), orderId: decision.order.id };
  }
  // Every order sharing the number shares one counter: the lockout is per store and order number.
  if (decision.kind === 'contact_wrong') await recordWrongTry(em, rows[0]!.store_id, lockoutKeyOf(rows[0]!), rule);
  const left = TRACKING_FAILURE_FLOOR_MS - (performance.now() - started);
  if (left > 0) await sleep(left);
  return decision.kind === 'not_found' ? decision : { ...decision, storeName: rows[0]!.store_name };
}
