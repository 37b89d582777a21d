// One transaction helper for writes: a transaction PostgreSQL rolled back whole because of a concurrent one
// (40001 serialization failure, 40P01 deadlock), or one that could not begin because every pooled
// connection stayed busy, is run again, a few times with jittered waits, before the failure reaches the
// client as 503 (db/errors.ts). Nothing of a rolled-back try remains, so running the
// same work again is safe; a transaction nested in another is not retried here (its outer one is aborted).
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlState } from './errors.js';

/** Tries of one transaction in all, and the base of the jittered wait between them (ms). */
export const TRANSACTION_RETRY = { tries: 4, baseWaitMs: 20 } as const;

/** True for the failures that roll a transaction back because of another one: worth running it again. */
export const isConcurrencyFailure = (err: unknown) => ['40001', '40P01'].includes(sqlState(err) ?? '');

// Every pooled connection stayed busy for the pool's whole wait (a busy moment, not an outage: PostgreSQL
// unreachable fails differently). It happens while beginning, before any of the work ran.
const isPoolBusy = (err: unknown) => err instanceof Error && /timeout exceeded when trying to connect/i.test(err.message);

/**
 * Runs `work` in a transaction; a serialization failure, a deadlock or a busy pool runs it again in a new one, up to
 * TRANSACTION_RETRY.tries in all, waiting a random 0..base·2^n ms between (full jitter), then gives up with
 * the last error. Inside an open transaction it runs once, as a savepoint.
 */
export async function writeTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return em.transactional(work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional(work);
    } catch (err) {
      if (attempt >= TRANSACTION_RETRY.tries || !(isConcurrencyFailure(err) || isPoolBusy(err))) throw err;
      await sleep(Math.random() * TRANSACTION_RETRY.baseWaitMs * 2 ** attempt);
    }
  }
}
