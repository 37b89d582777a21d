import type { FastifyInstance, FastifyReply } from 'fastify';
import { pageError } from './errors.js';
import { html, page, PAGE_HEADERS } from './html.js';

/** An amount for people (domain/money.ts); re-exported for the pages that import it from here. */
export { formatMoney } from '../domain/money.js';

/** Sends a whole HTML page with the page security headers. */
export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.status(status).headers(PAGE_HEADERS).send(body);
}

/** Within a page plugin: failures answer an HTML page (never the API's JSON envelope) that reveals nothing on a 500. */
export function useHtmlErrors(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const error = pageError(err, request);
    const [title, message] =
      error.status >= 500
        ? ['Sorry', 'Something went wrong on our side. Please try again in a moment.']
        : ['This request cannot be handled', error.message];
    // An outage's Retry-After, as the API and the other pages send it.
    if (error.headers) reply.headers(error.headers);
    return sendPage(reply, error.status, page(title, html`<h1>${title}</h1><p>${message}</p>`));
  });
}
