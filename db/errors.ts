// What a database failure means to the client: the one place SQLSTATEs become the spec's error codes.
// The API's error handler (api/plugins/error-handler.ts) and the pages' (web/errors.ts) both ask here.
import { ApiError, unavailable } from '../contract/errors.js';

/** True when an error means PostgreSQL cannot be reached or is going away: answer 503, not 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300'].includes(code)
    )
      return true;
    // Class 08 is about the connection, except 08P01 (protocol violation): a malformed statement, not an outage.
    if (code.startsWith('08') && code !== '08P01') return true;
    const name = typeof e.name === 'string' ? e.name : '';
    if (name === 'ConnectionException') return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (
      /Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

// Data exceptions a client's value can cause when it reaches SQL unchecked (a bug of ours, but the value is
// what is wrong): invalid text representation (22P02), a datetime out of range or malformed (22008, 22007),
// a number out of range (22003), a string too long for its column (22001), bytes that are no text (22021, 22P05).
const BAD_VALUE = new Set(['22P02', '22007', '22008', '22003', '22001', '22021', '22P05']);

/** The SQLSTATE of a PostgreSQL error, raw from pg or wrapped by MikroORM (which keeps `code`), or null. */
export function sqlState(err: unknown): string | null {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return null;
}

/**
 * The error a client gets for a failed statement, or null when the failure is ours alone (then a logged
 * 500). The messages name no table, constraint, column or value: a client learns what to do, not our SQL.
 * - 23505 unique violation: 409 conflict (something by that name or id exists already, often just made by
 *   a concurrent request).
 * - 23503 foreign key violation: 422 unprocessable. A client causes it by naming something that does not
 *   exist, or that went away between our check and our write; the spec answers an unknown product in a
 *   cart the same way. (The other form, deleting a row still referenced, cannot happen here: every
 *   reference cascades or is set null, except a replayed delivery's, whose rows are never deleted.)
 * - the data exceptions of BAD_VALUE: 400 invalid_request.
 * - 40001 serialization failure, 40P01 deadlock: 503 unavailable with Retry-After: the transaction was
 *   rolled back whole and the same request will very likely pass.
 * - 57014 statement cancelled (statement timeout, pg_cancel_backend): 503 unavailable with Retry-After.
 * - PostgreSQL unreachable or going away (isDatabaseUnavailable): 503 unavailable with Retry-After.
 */
export function databaseError(err: unknown): ApiError | null {
  if (isDatabaseUnavailable(err)) return unavailable();
  const state = sqlState(err);
  if (state === null) return null;
  if (state === '23505')
    return new ApiError(
      'conflict',
      'This clashes with something that already exists, perhaps just created by another request; look it up before trying again.',
    );
  if (state === '23503') return new ApiError('unprocessable', 'This refers to something that does not exist, or was just removed.');
  if (BAD_VALUE.has(state))
    return new ApiError('invalid_request', 'A value in the request is out of range or not in the form its field takes.');
  if (state === '40001' || state === '40P01') return unavailable('A concurrent change got in the way; retry shortly.', 1);
  if (state === '57014') return unavailable('The request took too long and was stopped; retry shortly.');
  return null;
}
