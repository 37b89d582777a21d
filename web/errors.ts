import type { FastifyError, FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { isTemporalUnavailable } from '../temporal/errors.js';

/**
 * What a failed page request means, as a contract error: a client's mistake keeps its message, an
 * outage is 503 with Retry-After, anything else is logged and becomes a 500 that reveals nothing.
 */
export function pageError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as FastifyError;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('payload_too_large', 'The form is larger than 1 MB.');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('invalid_request', e.message);
  if (isDatabaseUnavailable(err) || isTemporalUnavailable(err)) {
    request.log.error({ err }, 'backing service unavailable');
    return new ApiError('unavailable', 'The service is briefly unavailable; retry shortly.', undefined, { 'retry-after': '5' });
  }
  request.log.error({ err }, 'unhandled error');
  return new ApiError('internal_error', 'Something went wrong on our side.');
}
