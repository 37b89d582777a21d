import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { databaseError } from '../../db/errors.js';
import { isTemporalUnavailable } from '../../temporal/errors.js';
import { ApiError, unavailable, type ErrorCode } from '../../contract/errors.js';
import { setCommonHeaders } from './common-headers.js';

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; param?: string; request_id: string };
}

/** Converts any thrown value into the spec's error envelope (database failures as db/errors.ts maps them); unexpected ones are logged and hidden. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as FastifyError;
  if (hasZodFastifySchemaValidationErrors(e)) {
    const first = e.validation[0]!;
    const path = first.instancePath.split('/').filter(Boolean);
    // An unknown field (strict schemas) is reported on its parent; name the field itself.
    const unknown = first.keyword === 'unrecognized_keys' ? (first.params as { keys?: string[] }).keys?.[0] : undefined;
    const param = [...path, ...(unknown ? [unknown] : [])].join('.');
    return new ApiError('invalid_request', `${param ? `${param}: ` : ''}${first.message ?? 'invalid value'}`, param || undefined);
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is larger than 1 MB.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Send the request body as application/json.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL is malformed.');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_request', e.message);
  }
  const refused = databaseError(err) ?? (isTemporalUnavailable(err) ? unavailable() : null);
  if (refused) {
    request.log[refused.status >= 500 ? 'error' : 'warn']({ err }, `backing service refused the request: ${refused.code}`);
    return refused;
  }
  request.log.error({ err }, 'unhandled error');
  return new ApiError('internal_error', 'Something went wrong on our side. Quote the request id when you contact support.');
}

/** Sends an ApiError as the envelope, with the common headers set. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  const body: ErrorEnvelope = {
    error: { code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}), request_id: request.id },
  };
  if (error.headers) reply.headers(error.headers);
  setCommonHeaders(request, reply);
  return reply.status(error.status).type('application/json; charset=utf-8').send(body);
}

export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, toApiError(err, request)));
  // Fastify also lands here for a known path with a method it does not have.
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
});
