import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { executeBound } from './bound.js';
import { numbered, prepared, runPrepared, type Prepared } from './prepared.js';

export interface KeysetQuery {
  /** A table with created_at and id columns. */
  table: string;
  /** Conditions joined with AND; the first one must scope the rows to one store. */
  where: string[];
  params: unknown[];
  cursor?: string | undefined;
  limit: number;
  /**
   * The columns to read (created_at and id among them); the page then runs as a prepared statement
   * (db/prepared.ts), outside a transaction only. Without them: `select *`, with its values bound (db/bound.ts).
   */
  columns?: string;
}

/** One prepared statement per distinct text (a few per table: with or without a cursor and each filter). */
const statements = new Map<string, Prepared>();

/**
 * One page newest first by (created_at, id), and the opaque cursor of the next. The cursor only ever
 * narrows the caller's own conditions, so a forged one cannot reach another store's rows; it keeps
 * created_at to the microsecond (a millisecond Date would skip rows sharing a millisecond).
 */
export async function keysetPage<T extends { id: string }>(
  em: EntityManager,
  q: KeysetQuery,
): Promise<{ rows: T[]; hasMore: boolean; nextCursor: string | null }> {
  const where = [...q.where];
  const params = [...q.params];
  const cursor = q.cursor ? decodeCursor(q.cursor) : null;
  if (cursor) {
    where.push('(created_at, id) < (?::timestamptz, ?::uuid)');
    params.push(cursor.createdAt, cursor.id);
  }
  params.push(q.limit + 1);
  const sql = `select ${q.columns ?? '*'}, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position
     from ${q.table} where ${where.join(' and ')} order by created_at desc, id desc limit ?`;
  let rows: (T & { position: string })[];
  if (q.columns) {
    const text = numbered(sql);
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = prepared(text)));
    rows = await runPrepared<T & { position: string }>(em, statement, params);
  } else {
    rows = await executeBound<T & { position: string }>(em, sql, params);
  }
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  const hasMore = rows.length > q.limit;
  return { rows: page, hasMore, nextCursor: hasMore && last ? encodeCursor({ createdAt: last.position, id: last.id }) : null };
}
