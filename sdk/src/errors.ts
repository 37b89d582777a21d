// The API's error envelope as a typed error: every failed call of the client throws one of these.
import type { components } from './schema.js';

export type ErrorCode = components['schemas']['Error']['error']['code'];

/** An error answer of the API: {error: {code, message, param?, request_id}} with its HTTP status. */
export class StoreCommerceError extends Error {
  override readonly name: string = 'StoreCommerceError';
  /** HTTP status of the answer (0 when no answer arrived: StoreCommerceConnectionError). */
  readonly status: number;
  /** One of the spec's fixed codes (invalid_request, unauthorized, …, unavailable). */
  readonly code: ErrorCode;
  /** The field at fault, as a dotted path, when the service names one. */
  readonly param: string | undefined;
  /** The X-Request-Id of the failed request; quote it to support. */
  readonly request_id: string;
  /** Seconds the service asked to wait (Retry-After), on 429 and 503 answers. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    code: ErrorCode;
    message: string;
    param?: string | undefined;
    request_id: string;
    retryAfter?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.param = init.param;
    this.request_id = init.request_id;
    this.retryAfter = init.retryAfter;
  }
}

/**
 * No answer arrived: the connection failed or was reset, or the attempt took longer than the client's timeout.
 * Idempotent calls were already retried `attempts - 1` times; others (checkout sessions, webhook endpoints,
 * the connect exchange, PATCH) were not, since the service may have carried out the first attempt.
 */
export class StoreCommerceConnectionError extends StoreCommerceError {
  override readonly name: string = 'StoreCommerceConnectionError';
  /** True when the attempt was abandoned after the client's timeout (not the caller's own signal). */
  readonly timedOut: boolean;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(init: { message: string; timedOut: boolean; attempts: number; cause?: unknown }) {
    super({ status: 0, code: 'unavailable', message: init.message, request_id: '' });
    this.timedOut = init.timedOut;
    this.attempts = init.attempts;
    if (init.cause !== undefined) this.cause = init.cause;
  }
}

/** What the status alone means when an answer carries no envelope (a proxy's page, an empty body). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value == null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The StoreCommerceError of a failed answer: the envelope when there is one, else the status's own code. */
export function toStoreCommerceError(response: Response, body: unknown): StoreCommerceError {
  const envelope = (body as { error?: Partial<components['schemas']['Error']['error']> } | undefined)?.error;
  const requestId = envelope?.request_id ?? response.headers.get('x-request-id') ?? '';
  return new StoreCommerceError({
    status: response.status,
    code: envelope?.code ?? CODE_BY_STATUS[response.status] ?? 'internal_error',
    message: envelope?.message ?? `HTTP ${response.status} without an error body`,
    param: envelope?.param,
    request_id: requestId,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  });
}
