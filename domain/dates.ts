/** A moment as the API prints it (spec: ISO 8601 in UTC, milliseconds), from a Date or PostgreSQL's text. */
export const iso = (value: Date | string): string => new Date(value).toISOString();

/** iso(), keeping null (a moment that has not happened). */
export const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));
