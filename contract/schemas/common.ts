import { ERROR_CODES } from '../errors.js';
import { z } from '../zod.js';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string().openapi({ description: 'Plain words for a person.' }),
      param: z.string().optional().openapi({ description: 'The field at fault, as a dotted path (items.3.quantity).' }),
      request_id: z.string().openapi({ description: 'Repeats the X-Request-Id header.' }),
    }),
  })
  .openapi('Error', { example: { error: { code: 'invalid_request', message: 'totals.total: required', param: 'totals.total', request_id: 'req_5f0c…' } } });

export const Uuid = z.uuid();
/** ISO 8601 date-time as the API prints it (UTC, milliseconds). */
export const DateTime = z.iso.datetime({ offset: true }).openapi({ example: '2026-11-22T10:15:00.000Z' });
