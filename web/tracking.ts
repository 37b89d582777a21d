import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS_PER_IP, isOverLimit, rateLimitState } from '../domain/rate-limits.js';
import { findStoreBySlug } from '../services/tracking/find.js';
import { trackById, trackByNumber, TrackingRefused, type TrackingFound } from '../services/tracking/lookup.js';
import { countAnonymous } from '../services/auth/keys.js';
import { pageError } from './errors.js';
import { orderTrackingPageUrl } from '../contract/urls.js';
import { PAGE_HEADERS } from './html.js';
import { contactForm, messagePage, storeForm, trackingView } from './tracking-view.js';

type Form = Record<string, string | undefined>;
const field = (body: unknown, name: string): string | undefined => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' && value.trim() ? value : undefined;
};

const WRONG = 'That does not match this order. Check the last 4 digits of your phone number, or your email.';
const MISSING = 'This order needs the last 4 digits of your phone number, or your email.';
const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

function send(reply: FastifyReply, status: number, body: string, headers: Record<string, string> = {}) {
  return reply
    .status(status)
    .headers({ ...PAGE_HEADERS, ...headers })
    .send(body);
}

/** The lookup's order, or its refusal, which the pages answer themselves (anything else goes to the error handler). */
async function lookup(work: Promise<TrackingFound>): Promise<TrackingFound | TrackingRefused> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof TrackingRefused) return err;
    throw err;
  }
}

/**
 * The public tracking pages: the order's page ({PUBLIC_URL}/track/{order id}) and the store's page
 * ({PUBLIC_URL}/s/{slug}/track). Same facts, contact rules and lockout as GET /tracking; the contact
 * travels only in a POST body, never in a URL. Each lookup counts against the visitor's IP like a keyless request.
 */
export async function trackingPages(app: FastifyInstance) {
  const rule = { maxWrong: app.config.trackingMaxWrongContact, lockoutSeconds: app.config.trackingLockoutSeconds };
  const config = { unmetered: true };
  const bodyLimit = 4096;
  // The free plan's badge links to the service's own origin (PUBLIC_URL).
  const badge = (shown: boolean) => (shown ? app.config.publicUrl : undefined);

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.setErrorHandler((err, request, reply) => {
    const error = pageError(err, request);
    const text = error.status < 500 ? 'This request could not be read.' : 'Please try again shortly.';
    return send(reply, error.status, messagePage('Something went wrong', text), error.headers);
  });

  /** The visitor's per-IP allowance; false (and a 429 page sent) when over it. */
  async function metered(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const { count, resetAt } = await countAnonymous(app.orm.em, request.ip);
    const counter = { limit: ANONYMOUS_PER_IP, count };
    request.rateLimit = rateLimitState(resetAt, counter);
    if (!isOverLimit(counter)) return true;
    const retryAfter = Math.max(1, resetAt - Math.floor(Date.now() / 1000));
    send(reply, 429, messagePage('Too many requests', 'Please wait a minute and try again.'), { 'retry-after': String(retryAfter) });
    return false;
  }

  /** The page of one outcome: the order, the form again with a message, or a message page. */
  function answer(
    reply: FastifyReply,
    outcome: TrackingFound | TrackingRefused,
    ask: (error?: string) => string,
    notFound: () => string,
    withLink: boolean,
  ) {
    if (!(outcome instanceof TrackingRefused)) {
      const link = withLink ? orderTrackingPageUrl(app.config, outcome.orderId) : undefined;
      return send(reply, 200, trackingView(outcome.result, link, badge(outcome.trackingBadge)));
    }
    switch (outcome.reason) {
      case 'not_found':
        return send(reply, 404, notFound());
      case 'contact_missing':
        return send(reply, 422, ask(MISSING));
      case 'contact_wrong':
        return send(reply, 422, ask(WRONG));
      case 'locked': {
        const text = `Too many wrong answers for this order. Try again in about ${minutes(outcome.retryAfter!)} minute(s).`;
        return send(reply, 429, messagePage('Too many tries', text, outcome.storeName ?? undefined), {
          'retry-after': String(outcome.retryAfter),
        });
      }
    }
  }

  const noOrder = () => messagePage('Order not found', 'This tracking link does not lead to an order.');
  // Form actions are built from the matched ids, never copied from the request line.
  const orderPath = (orderId: string) => `/track/${encodeURIComponent(orderId)}`;
  const storePath = (slug: string) => `/s/${encodeURIComponent(slug)}/track`;

  // The order's page: shown at once when the API would show it without a contact, else the contact form.
  app.get<{ Params: { orderId: string } }>('/track/:orderId', { config }, async (request, reply) => {
    const outcome = await lookup(trackById(app.orm.em, rule, request.params.orderId, undefined));
    if (outcome instanceof TrackingRefused && outcome.reason === 'contact_missing')
      return send(
        reply,
        200,
        contactForm(outcome.storeName ?? '', orderPath(request.params.orderId), undefined, badge(outcome.trackingBadge)),
      );
    return answer(reply, outcome, () => '', noOrder, false);
  });

  app.post<{ Params: { orderId: string } }>('/track/:orderId', { config, bodyLimit }, async (request, reply) => {
    if (!(await metered(request, reply))) return reply;
    const outcome = await lookup(trackById(app.orm.em, rule, request.params.orderId, field(request.body, 'contact')));
    const storeName = outcome instanceof TrackingRefused ? (outcome.storeName ?? '') : '';
    const shown = outcome instanceof TrackingRefused ? outcome.trackingBadge : false;
    const ask = (error?: string) => contactForm(storeName, orderPath(request.params.orderId), error, badge(shown));
    return answer(reply, outcome, ask, noOrder, false);
  });

  // The store's page: a shopper types the order number (and the contact) and gets the order's tracking.
  app.get<{ Params: { slug: string }; Querystring: { order?: string } }>('/s/:slug/track', { config }, async (request, reply) => {
    const store = await findStoreBySlug(app.orm.em, request.params.slug);
    if (!store) return send(reply, 404, messagePage('Store not found', 'There is no store at this address.'));
    const prefill = typeof request.query.order === 'string' ? request.query.order.slice(0, 255) : '';
    return send(reply, 200, storeForm(store.name, storePath(request.params.slug), prefill, undefined, badge(store.trackingBadge)));
  });

  app.post<{ Params: { slug: string } }>('/s/:slug/track', { config, bodyLimit }, async (request, reply) => {
    const store = await findStoreBySlug(app.orm.em, request.params.slug);
    if (!store) return send(reply, 404, messagePage('Store not found', 'There is no store at this address.'));
    if (!(await metered(request, reply))) return reply;
    const order = field(request.body, 'order')?.slice(0, 255);
    const ask = (error?: string) => storeForm(store.name, storePath(request.params.slug), order ?? '', error, badge(store.trackingBadge));
    if (!order) return send(reply, 422, ask('Enter your order number.'));
    const outcome = await lookup(trackByNumber(app.orm.em, rule, store.id, order, field(request.body, 'contact')));
    return answer(reply, outcome, ask, () => ask('No order with this number. Check it and try again.'), true);
  });
}
