import type { OrderSource } from './order-status.js';
import { contactMatches, contactRequired } from './tracking-contact.js';

/** What the decision needs of one order that carries the looked-up number. */
export interface TrackingCandidate {
  source: OrderSource;
  phone: string | null;
  email: string | null;
}

export type TrackingDecision<C> =
  | { kind: 'not_found' }
  | { kind: 'locked'; retryAfter: number }
  | { kind: 'contact_missing' }
  | { kind: 'contact_wrong' }
  | { kind: 'found'; order: C };

/**
 * The rules of GET /tracking over the orders sharing one number (newest first):
 * none → not_found; a running lockout → locked, whatever the contact; a contact → the newest order it
 * matches, else contact_wrong; no contact → the order only when it is the only one and needs no contact
 * (an order from an outside platform, or a number shared by several orders, asks for the contact).
 */
export function decideTracking<C extends TrackingCandidate>(
  candidates: C[],
  contact: string | undefined,
  lock: { retryAfter: number } | null,
): TrackingDecision<C> {
  if (candidates.length === 0) return { kind: 'not_found' };
  if (lock) return { kind: 'locked', retryAfter: Math.max(1, lock.retryAfter) };
  // Every candidate is compared (map, not find), so the work does not depend on which one matches.
  const matches = candidates.map((c) => contact !== undefined && contactMatches(contact, c.phone, c.email));
  if (contact === undefined) {
    const ambiguous = candidates.length > 1;
    return ambiguous || contactRequired(candidates[0]!.source) ? { kind: 'contact_missing' } : { kind: 'found', order: candidates[0]! };
  }
  const first = matches.indexOf(true);
  return first >= 0 ? { kind: 'found', order: candidates[first]! } : { kind: 'contact_wrong' };
}
