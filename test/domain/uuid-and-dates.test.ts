import { describe, expect, it } from 'vitest';
import { iso, isoOrNull } from '../../domain/dates.js';
import { isUuid } from '../../domain/uuid.js';

describe('isUuid: only a well-formed uuid can name a row', () => {
  it.each(['0b6c2f4e-8a1d-4c3b-9f2e-1a2b3c4d5e6f', '0B6C2F4E-8A1D-4C3B-9F2E-1A2B3C4D5E6F'])('accepts %s', (id) =>
    expect(isUuid(id)).toBe(true),
  );
  it.each([
    '',
    'not-a-uuid',
    '0b6c2f4e8a1d4c3b9f2e1a2b3c4d5e6f',
    '0b6c2f4e-8a1d-4c3b-9f2e-1a2b3c4d5e6',
    ' 0b6c2f4e-8a1d-4c3b-9f2e-1a2b3c4d5e6f',
    '0b6c2f4e-8a1d-4c3b-9f2e-1a2b3c4d5e6g',
  ])('refuses %j', (id) => expect(isUuid(id)).toBe(false));
});

describe('iso: a moment as the API prints it', () => {
  it('reads a Date and PostgreSQL’s text alike, in UTC with milliseconds', () => {
    expect(iso(new Date(Date.UTC(2026, 10, 22, 10, 15)))).toBe('2026-11-22T10:15:00.000Z');
    expect(iso('2026-11-22 12:15:00.123456+02')).toBe('2026-11-22T10:15:00.123Z');
  });

  it('isoOrNull keeps null', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull('2026-11-22T10:15:00Z')).toBe('2026-11-22T10:15:00.000Z');
  });
});
