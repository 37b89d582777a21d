import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';

export interface KeysetQuery {
  /** A table with created_at and id columns. */
  table: string;
  /** Conditions joined with AND; the first one must scope the rows to one store. */
  where: string[];
  params: unknown[];
  cursor?: string | undefined;
  limit: number;
}

/**
 * One page newest first by (created_at, id), and the opaque cursor of the next. The cursor only ever
 * narrows the caller's own conditions, so a forged one cannot reach another store's rows; it keeps
 * created_at to the microsecond (a millisecond Date would skip rows sharing a millisecond).
 */
export async function keysetPage<T extends { id: string }>(em: EntityManager, q: KeysetQuery): Promise<{ rows: T[]; hasMore: boolean; nextCursor: string | null }> {
  const where = [...q.where];
  const params = [...q.params];
  const cursor = q.cursor ? decodeCursor(q.cursor) : null;
  if (cursor) (where.push('(created_at, id) < (?::timestamptz, ?::uuid)'), params.push(cursor.createdAt, cursor.id));
  params.push(q.limit + 1);
  const rows = await em.execute<(T & { position: string })[]>(
    `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position
     from ${q.table} where ${where.join(' and ')} order by created_at desc, id desc limit ?`,
    params,
  );
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  const hasMore = rows.length > q.limit;
  return { rows: page, hasMore, nextCursor: hasMore && last ? encodeCursor({ createdAt: last.position, id: last.id }) : null };
}
