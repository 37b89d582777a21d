import type { FastifyInstance } from 'fastify';
import { defineRoute } from '../route.js';
import { TrackingQuery, TrackingResult } from '../../contract/schemas/tracking.js';
import { trackByNumber } from '../../services/tracking/lookup.js';

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
    // A refusal is thrown as its ApiError (404, 422 contact, 429 with Retry-After).
    async (request) =>
      (await trackByNumber(app.orm.em, rule, request.principal!.storeId, request.query.order, request.query.contact)).result,
  );
}
