/** The spec's fixed error codes and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** A failure the client can act on; the error handler turns it into the spec's envelope. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `No such ${what} in this store.`);

/** 503 unavailable with Retry-After: a backing service is down or busy, and the same request will likely pass soon. */
export const unavailable = (message = 'The service is briefly unavailable; retry shortly.', retryAfterSeconds = 5) =>
  new ApiError('unavailable', message, undefined, { 'retry-after': String(retryAfterSeconds) });
