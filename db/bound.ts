import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { numbered } from './prepared.js';

interface QueryRunner {
  executeQuery(query: CompiledQuery): Promise<{ rows: unknown[] }>;
}

/**
 * Runs SQL written with `?` placeholders (and no other `?`) with its values bound, not inlined:
 * em.execute writes every value into the SQL text as a literal, so a 1 MB order became several MB of
 * SQL for the API to build and PostgreSQL to lex. In the caller's transaction when there is one, on
 * the ORM's pool otherwise; same connections, type parsers and errors as em.execute, and logged in
 * the ORM's query log like it.
 */
export async function executeBound<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T[]> {
  const runner = (em.getTransactionContext<QueryRunner>() ?? (em.getConnection() as PostgreSqlConnection).getClient()) as QueryRunner;
  const text = numbered(sql);
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
