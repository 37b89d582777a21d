import type { FastifyInstance, FastifyReply } from 'fastify';
import { toUnits } from '../domain/money.js';
import { validateShopperForm } from '../domain/shopper-form.js';
import { priceLines } from '../services/checkout/cart.js';
import { placeCartOrder } from '../services/checkout/place.js';
import { findCartSession, type CartSession } from '../services/checkout/session-row.js';
import { findOrderRow } from '../services/orders/read.js';
import { presentOrder } from '../services/orders/present.js';
import { renderCart, renderClosed, renderConfirmation } from './cart-views.js';
import { formatMoney, sendPage, useHtmlErrors } from './format.js';
import { cartConfirmationUrl, cartPageUrl } from '../contract/urls.js';

type Params = { slug: string; token: string };
const unmetered = { config: { unmetered: true } };
// A delivery form is a few hundred bytes; this leaves room for long addresses and notes.
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The hosted cart at {PUBLIC_URL}/s/{slug}/cart/{token}: GET shows it, POST places its cash-on-delivery
 * order, /confirmation shows the result. Pages, not API: HTML errors, form bodies only here; only the POST is metered.
 */
export async function cartPages(app: FastifyInstance) {
  const publicUrl = app.config.publicUrl;
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  useHtmlErrors(app);

  /** The session of the URL, or null after sending the page for an unknown, expired or used cart. */
  async function openSession(params: Params, reply: FastifyReply, onUsed: 'page' | 'redirect'): Promise<CartSession | null> {
    const session = await findCartSession(app.orm.em, params.token);
    if (!session || session.store.slug !== params.slug) {
      await sendPage(
        reply,
        404,
        renderClosed(null, 'Cart not found', 'This checkout link does not exist. Check that you opened the whole link.'),
      );
      return null;
    }
    if (session.state === 'used') {
      if (onUsed === 'redirect') await reply.redirect(cartConfirmationUrl({ publicUrl }, params.slug, params.token), 303);
      else await sendUsed(reply, session);
      return null;
    }
    if (session.state === 'expired') {
      await sendExpired(reply, session);
      return null;
    }
    return session;
  }

  function sendExpired(reply: FastifyReply, session: CartSession) {
    const back = session.returnUrl ? [{ label: 'Back to the shop', href: session.returnUrl }] : [];
    return sendPage(
      reply,
      410,
      renderClosed(
        session.store.name,
        'This checkout link has expired',
        'No order was placed with it. Go back to the shop to start again.',
        back,
      ),
    );
  }

  async function sendUsed(reply: FastifyReply, session: CartSession) {
    const order = session.orderId ? await findOrderRow(app.orm.em, session.store.id, session.orderId) : null;
    const links = [
      ...(order ? [{ label: 'Track your order', href: presentOrder(order, publicUrl).tracking.page_url }] : []),
      ...(session.returnUrl ? [{ label: 'Back to the shop', href: session.returnUrl }] : []),
    ];
    const message = `This cart's order was already placed${order?.order_number ? ` (order ${order.order_number})` : ''}; it cannot be ordered twice.`;
    return sendPage(reply, 409, renderClosed(session.store.name, 'This order has already been placed', message, links));
  }

  app.get<{ Params: Params }>('/s/:slug/cart/:token', unmetered, async (request, reply) => {
    const session = await openSession(request.params, reply, 'page');
    if (!session) return reply;
    const cart = await priceLines(app.orm.em, session.store, session.lines);
    return sendPage(reply, 200, renderCart(session, cart, { values: {}, errors: {} }));
  });

  app.post<{ Params: Params; Body: unknown }>(
    '/s/:slug/cart/:token',
    // A form post counts against the client's address like the API's keyless requests (the pages that are only read do not).
    { bodyLimit: FORM_BODY_LIMIT },
    async (request, reply) => {
      const session = await openSession(request.params, reply, 'redirect');
      if (!session) return reply;
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
      const form = validateShopperForm(body);
      if (!form.ok) {
        const cart = await priceLines(app.orm.em, session.store, session.lines);
        return sendPage(reply, 400, renderCart(session, cart, { values: form.values, errors: form.errors }));
      }
      const outcome = await placeCartOrder(app.orm.em, session, form.shopper, expectedTotal(body.expected_total), publicUrl);
      const values = Object.fromEntries(Object.entries(form.shopper).map(([k, v]) => [k, v ?? '']));
      switch (outcome.kind) {
        case 'placed':
        case 'used':
          return reply.redirect(cartConfirmationUrl({ publicUrl }, request.params.slug, request.params.token), 303);
        case 'expired':
          return sendExpired(reply, session);
        case 'unavailable':
          return sendPage(
            reply,
            409,
            renderCart(
              session,
              outcome.cart,
              { values, errors: {} },
              'Sorry, part of this cart was just sold out or is no longer sold. No order was placed.',
            ),
          );
        case 'changed':
          return sendPage(
            reply,
            409,
            renderCart(
              session,
              outcome.cart,
              { values, errors: {} },
              `The total is now ${formatMoney(outcome.cart.total, session.store.currency)}. Please check it and place the order again.`,
            ),
          );
      }
    },
  );

  app.get<{ Params: Params }>('/s/:slug/cart/:token/confirmation', unmetered, async (request, reply) => {
    const session = await findCartSession(app.orm.em, request.params.token);
    if (session?.state !== 'used' || session.store.slug !== request.params.slug || !session.orderId) {
      if (session?.state === 'open' && session.store.slug === request.params.slug)
        return reply.redirect(cartPageUrl({ publicUrl }, request.params.slug, request.params.token), 303);
      return openSession(request.params, reply, 'page').then(() => reply);
    }
    const row = (await findOrderRow(app.orm.em, session.store.id, session.orderId))!;
    const order = presentOrder(row, publicUrl);
    const total = formatMoney(toUnits(row.total), row.currency);
    return sendPage(
      reply,
      200,
      renderConfirmation(
        session.store.name,
        { number: order.order_number ?? order.id, trackingUrl: order.tracking.page_url, total },
        session.returnUrl,
      ),
    );
  });
}

/** The total the shopper saw (hidden field), or null when absent or malformed. */
function expectedTotal(value: unknown): bigint | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    return toUnits(value);
  } catch {
    return null;
  }
}
