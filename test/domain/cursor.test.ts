import { describe, it, expect } from 'vitest';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';

const position = { createdAt: '2024-05-01T10:00:00.123456Z', id: '0b6f3c2e-8a4d-4c1e-9f7a-2d5e6b8c9a01' };
const encodeRaw = (payload: unknown): string => Buffer.from(JSON.stringify(payload)).toString('base64url');

describe('cursor round trip', () => {
  it('decoding an encoded cursor gives back the same position, microseconds kept', () => {
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('PostgreSQL text timestamps are accepted as they are', () => {
    const pg = { createdAt: '2024-05-01 10:00:00.123456+00', id: position.id };
    expect(decodeCursor(encodeCursor(pg))).toEqual(pg);
  });

  it('the cursor is URL-safe and carries a version', () => {
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(cursor, 'base64url').toString())).toMatchObject({ v: 1 });
  });

  it('an upper-case uuid is read back in lower case', () => {
    expect(decodeCursor(encodeCursor({ ...position, id: position.id.toUpperCase() }))?.id).toBe(position.id);
  });
});

describe('malformed cursors decode to null', () => {
  it.each([
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['padding and standard base64 characters', 'eyJ2IjoxfQ=='],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON but not an object', encodeRaw([1, 2])],
    ['JSON null', encodeRaw(null)],
    ['unknown version', encodeRaw({ v: 2, t: position.createdAt, id: position.id })],
    ['no version', encodeRaw({ t: position.createdAt, id: position.id })],
    ['missing id', encodeRaw({ v: 1, t: position.createdAt })],
    ['missing timestamp', encodeRaw({ v: 1, id: position.id })],
    ['id not a uuid', encodeRaw({ v: 1, t: position.createdAt, id: '42' })],
    ['id with SQL in it', encodeRaw({ v: 1, t: position.createdAt, id: "x' OR '1'='1" })],
    ['timestamp not a date', encodeRaw({ v: 1, t: 'yesterday', id: position.id })],
    ['timestamp without a zone', encodeRaw({ v: 1, t: '2024-05-01T10:00:00', id: position.id })],
    ['February 30th', encodeRaw({ v: 1, t: '2024-02-30T10:00:00Z', id: position.id })],
    ['hour 24', encodeRaw({ v: 1, t: '2024-05-01T24:00:00Z', id: position.id })],
    ['more than microseconds', encodeRaw({ v: 1, t: '2024-05-01T10:00:00.1234567Z', id: position.id })],
    ['far too long', 'A'.repeat(10_000)],
  ])('%s', (_, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });

  it('February 29th of a leap year is a real date', () => {
    const leap = { createdAt: '2024-02-29T23:59:59.999999+05:30', id: position.id };
    expect(decodeCursor(encodeCursor(leap))).toEqual(leap);
  });
});
