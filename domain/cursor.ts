// Keyset cursor for lists ordered by (created_at desc, id desc).
// Opaque to clients but not secret: every list query is also scoped to the caller's store, so a
// hand-made cursor can only move within the caller's own data.
import { isUuid } from './uuid.js';

export type Cursor = {
  /** created_at exactly as PostgreSQL gave it (microseconds kept), e.g. 2024-05-01T10:00:00.123456Z. */
  createdAt: string;
  id: string;
};

const VERSION = 1;
// A real cursor is about 130 characters; anything far longer is not worth decoding.
const MAX_CURSOR_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// ISO 8601 or PostgreSQL's text output ("2024-05-01 10:00:00.123456+00"), always with a zone.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2})(?::?(\d{2}))?)$/;

/** An opaque base64url string that decodeCursor reads back to the same position. */
export function encodeCursor(position: Cursor): string {
  const payload = { v: VERSION, t: position.createdAt, id: position.id };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The position a cursor holds, or null for anything encodeCursor could not have produced. */
export function decodeCursor(cursor: string): Cursor | null {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null) return null;
  const { v, t, id } = payload as Record<string, unknown>;
  if (v !== VERSION || typeof t !== 'string' || typeof id !== 'string') return null;
  if (!isUuid(id) || !isTimestamp(t)) return null;
  return { createdAt: t, id: id.toLowerCase() };
}

function isTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  if (!m) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = m
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part)));
  // Date.UTC rolls Feb 30 over into March (and years below 100 into the 1900s); reading back catches both.
  const date = new Date(Date.UTC(year, month - 1, day));
  const realDate = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return realDate && hour <= 23 && minute <= 59 && second <= 59 && zoneHour <= 15 && zoneMinute <= 59;
}
