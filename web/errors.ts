import type { FastifyError, FastifyRequest } from 'fastify';
import { ApiError, unavailable } from '../contract/errors.js';
import { databaseError } from '../db/errors.js';
import { isTemporalUnavailable } from '../temporal/errors.js';

/**
 * What a failed page request means, as a contract error: a client's mistake keeps its message, a
 * database refusal or outage means what db/errors.ts says (503 with Retry-After for an outage), anything
 * else is logged and becomes a 500 that reveals nothing.
 */
export function pageError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as FastifyError;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('payload_too_large', 'The form is larger than 1 MB.');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('invalid_request', e.message);
  const refused = databaseError(err) ?? (isTemporalUnavailable(err) ? unavailable() : null);
  if (refused) {
    request.log[refused.status >= 500 ? 'error' : 'warn']({ err }, `backing service refused the request: ${refused.code}`);
    return refused;
  }
  request.log.error({ err }, 'unhandled error');
  return new ApiError('internal_error', 'Something went wrong on our side.');
}
