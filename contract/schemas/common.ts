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
  .openapi('Error', {
    example: { error: { code: 'invalid_request', message: 'totals.total: required', param: 'totals.total', request_id: 'req_5f0c…' } },
  });

// PostgreSQL has no year 0 and prints earlier moments as BC, which no ISO 8601 reader takes back.
const YEAR_ONE = Date.parse('0001-01-01T00:00:00Z');

/** ISO 8601 date-time as the API prints it (UTC, milliseconds); from year 1 on (UTC). */
export const DateTime = z.iso
  .datetime({ offset: true })
  .refine((text) => Date.parse(text) >= YEAR_ONE, 'must be from the year 0001 on (UTC)')
  .openapi({ example: '2026-11-22T10:15:00.000Z' });
