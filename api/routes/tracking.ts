import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../contract/errors.js';
import { defineRoute } from '../route.js';
import { TrackingQuery, TrackingResult } from '../../contract/schemas/tracking.js';
import { trackByNumber, type TrackingOutcome } from '../../services/tracking/lookup.js';

const DESCRIPTION = [
  'Looks an order up by the number the shopper sees. The answer never contains a name, phone, email or address.',
  'Unknown number (or an archived order): 404. An order copied from platform_a or platform_b needs `contact`: 422 with ' +
    '`param: "contact"` when it is missing or wrong. Native and api orders are shown without a contact, and checked whenever one is given.',
  'Several orders of the store with the same number (two connected shops): the contact picks the newest one it matches; ' +
    'without a contact the answer is 422 `contact`, never a guess.',
  'Wrong contacts count per store and order number, across all visitors and keys: after TRACKING_MAX_WRONG_CONTACT (5) ' +
    'every lookup of that number answers 429 with Retry-After for TRACKING_LOCKOUT_SECONDS (15 minutes), even with the right ' +
    'contact. Wrong tries older than that window are forgotten. Failed answers take a fixed minimum time, so a close guess ' +
    'and a far one cannot be told apart. See docs/tracking.md.',
].join('\n\n');

/** The error of each failed lookup; every one carries the same words whatever the order holds. */
export function trackingError(outcome: Exclude<TrackingOutcome, { kind: 'found' }>): ApiError {
  switch (outcome.kind) {
    case 'not_found':
      return new ApiError('not_found', 'No order with this number in this store.');
    case 'contact_missing':
      return new ApiError('unprocessable', 'This order needs a contact: the last 4 digits of the phone number on the order, or its email.', 'contact');
    case 'contact_wrong':
      return new ApiError('unprocessable', 'The contact does not match this order.', 'contact');
    case 'locked':
      return new ApiError('rate_limited', `Too many wrong contacts for this order; retry in ${outcome.retryAfter} seconds.`, undefined, {
        'retry-after': String(outcome.retryAfter),
      });
  }
}

/** GET /tracking: the shopper-facing lookup, for secret and publishable keys. */
export async function trackingRoutes(app: FastifyInstance) {
  const rule = { maxWrong: app.config.trackingMaxWrongContact, lockoutSeconds: app.config.trackingLockoutSeconds };

  defineRoute(
    app,
    'GET /tracking',
    {
      operationId: 'trackOrder',
      summary: 'Track an order by its number',
      description: DESCRIPTION,
      tag: 'Tracking',
      query: TrackingQuery,
      responses: { 200: { description: 'The tracking result', schema: TrackingResult } },
      errors: ['not_found', 'unprocessable'],
    },
    async (request) => {
      const outcome = await trackByNumber(app.orm.em, rule, request.principal!.storeId, request.query.order, request.query.contact);
      if (outcome.kind !== 'found') throw trackingError(outcome);
      return outcome.result;
    },
  );
}
