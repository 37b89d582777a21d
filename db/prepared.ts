import { createHash } from 'node:crypto';
import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';

/** A statement written with $1, $2 … placeholders, named after its text so one name never means two texts. */
export interface Prepared {
  name: string;
  text: string;
}

/** Names a statement for runPrepared; call once, at module load. */
export function prepared(text: string): Prepared {
  return { name: `sc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

/** The same SQL with MikroORM's ? placeholders numbered $1, $2 … in order (for SQL with no other `?`). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replaceAll('?', () => `$${++n}`);
}

/**
 * Runs a hot read (or the auth statement) as a named prepared statement on the ORM's own pool: PostgreSQL
 * parses and plans it once per pooled connection, where em.execute sends every statement as new text
 * (parsing and planning the auth statement cost PostgreSQL more CPU than running it). Same connections,
 * type parsers, query timeout and errors as em.execute, and logged in the ORM's query log like it.
 * Outside a transaction only: a transaction's statements must run on its own connection.
 * Select named columns, never `*`: a prepared `*` fails once a migration adds a column.
 */
export async function runPrepared<T>(em: EntityManager, statement: Prepared, values: unknown[]): Promise<T[]> {
  if (em.isInTransaction()) throw new Error(`runPrepared(${statement.name}) inside a transaction`);
  const started = Date.now();
  try {
    const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
    const { rows } = await pool.query({ name: statement.name, text: statement.text, values });
    em.config.getLogger().logQuery({ level: 'info', query: statement.text, took: Date.now() - started, results: rows.length });
    return rows as T[];
  } catch (err) {
    em.config.getLogger().logQuery({ level: 'error', query: statement.text, took: Date.now() - started });
    throw em.getDriver().convertException(err as Error);
  }
}
