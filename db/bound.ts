import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { numbered } from './prepared.js';

interface QueryRunner {
  executeQuery(query: CompiledQuery): Promise<{ rows: unknown[] }>;
}

/**
 * THE way to run SQL here: the statement is text with a `?` for each value (or a prepared statement's `$1`, `$2` … text), the values go separately
 * (bound parameters), so no value is ever written into SQL text. Typed by the caller:
 * `executeBound<{ id: string }>(em, 'select id from stores where slug = ?', [slug])` gives `{ id: string }[]`.
 *
 * - In or out of a transaction: inside `writeTransaction`/`em.transactional` it runs on that transaction's
 *   connection, otherwise on the ORM's pool. Same type parsers, query timeout and errors as MikroORM
 *   (a unique violation is MikroORM's UniqueConstraintViolationException, which db/errors.ts reads), and
 *   logged in the ORM's query log.
 * - `?` only marks values: no `?` elsewhere in the text (no jsonb `?` operator; use `jsonb_exists`), and
 *   exactly one value per `?` (checked). Table and column names are never values: keep them in code.
 * - A list is one value: `where id = any(?::uuid[])` with a JS array, never `in (?)`; rows to insert go
 *   as one JSON value (`jsonb_to_recordset(?::jsonb)`) or arrays (`unnest(?::text[], ?::int[])`).
 * - PostgreSQL infers a value's type from where it stands; where it cannot (`select ? as x`, `? is null`,
 *   `coalesce(?, ?)`), cast it: `?::int`.
 *
 * Do not use em.execute, em.find or other MikroORM queries: MikroORM writes every value into the SQL text
 * as a literal (test/db/no-inlined-values.test.ts fails when one reaches PostgreSQL). A hot read outside a
 * transaction may instead be a named prepared statement (db/prepared.ts runPrepared).
 */
export async function executeBound<T = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  values: readonly unknown[] = [],
): Promise<T[]> {
  // A prepared statement's text (db/prepared.ts, `$1` … already numbered) runs here too, inside a transaction.
  const marks = sql.split('?').length - 1;
  const numberedMarks = marks === 0 ? new Set(sql.match(/\$\d+/g) ?? []).size : 0;
  if (marks + numberedMarks !== values.length)
    throw new Error(`executeBound: ${marks + numberedMarks} placeholder(s) for ${values.length} value(s) in: ${sql.slice(0, 120)}`);
  const text = numbered(sql);
  const runner = em.getTransactionContext<QueryRunner>() ?? (await pooled(em));
  const started = Date.now();
  try {
    const { rows } = await runner.executeQuery(CompiledQuery.raw(text, [...values]));
    em.config.getLogger().logQuery({ level: 'info', query: text, took: Date.now() - started, results: rows.length });
    return rows as T[];
  } catch (err) {
    em.config.getLogger().logQuery({ level: 'error', query: text, took: Date.now() - started });
    throw em.getDriver().convertException(err as Error);
  }
}

/**
 * The ORM's own pool, connected first as MikroORM connects before its queries: getClient() alone would
 * make a pool that a later connect() replaces, left open so the process never exits.
 */
async function pooled(em: EntityManager): Promise<QueryRunner> {
  const connection = em.getConnection() as PostgreSqlConnection;
  await connection.ensureConnection();
  return connection.getClient() as unknown as QueryRunner;
}
