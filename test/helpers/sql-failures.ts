// Statements that genuinely fail with a given SQLSTATE on the run's database, for the error mapping's tests.
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A statement per SQLSTATE that PostgreSQL itself refuses with it (23505 needs one store to exist).
 * 40001 is raised by a DO block here, a real PostgreSQL error all the same; test/db/errors.test.ts also
 * provokes a true serialization failure and a true deadlock.
 */
export const FAILING_STATEMENTS = {
  // The slug of an existing store, again.
  '23505': (em: EntityManager) =>
    em.execute(`insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee)
      select gen_random_uuid(), name, slug, currency, mode, plan, published, standard_delivery_fee from stores limit 1`),
  // A key of a store that does not exist.
  '23503': (em: EntityManager) =>
    em.execute(
      `insert into api_keys (id, store_id, kind, key_hash, prefix, scopes, origins) values (gen_random_uuid(), gen_random_uuid(), 'secret', md5(random()::text), 'p', '{}', '{}')`,
    ),
  '22P02': (em: EntityManager) => em.execute('select id from orders where id = ?', ['not-a-uuid']),
  '22008': (em: EntityManager) => em.execute('select ?::timestamptz as t', ['0000-01-01T00:00:00Z']),
  '40001': (em: EntityManager) =>
    em.execute(`do $$ begin raise exception 'could not serialize access' using errcode = 'serialization_failure'; end $$`),
  '57014': (em: EntityManager) =>
    em.transactional(async (tx) => {
      await tx.execute(`set local statement_timeout = '20ms'`);
      await tx.execute('select pg_sleep(2)');
    }),
} as const;

export type FailingState = keyof typeof FAILING_STATEMENTS;

/** The error a piece of work throws (it must throw). */
export async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure, but the work succeeded');
}
