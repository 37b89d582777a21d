import type { FastifyInstance } from 'fastify';
import { pageError } from '../errors.js';
import { connectPages } from '../connect.js';
import { accountPages } from './account.js';
import { authPages } from './auth.js';
import { connectionPages } from './connections.js';
import { installGuard } from './guard.js';
import { homePages } from './home.js';
import { keyPages } from './keys.js';
import { notificationPages } from './notifications.js';
import { orderDetailPages } from './order-detail.js';
import { orderListPages } from './orders.js';
import { productPages } from './products.js';
import { pwaPages } from './pwa.js';
import { sendMessage } from './render.js';
import { settingsPages } from './settings.js';
import { webhookPages } from './webhooks.js';

/** The largest dashboard or connect form body (a webhook form, settings: a few hundred bytes). */
export const PAGE_FORM_BODY_LIMIT = 64 * 1024;

/**
 * The store owner's dashboard under /dashboard and the plugin connect page /connect/{platform}: HTML pages
 * with their own session auth, form parsing, CSRF checks and HTML error pages. Not API routes: only their POSTs are metered.
 */
export async function dashboardPages(app: FastifyInstance) {
  // Page routes are outside the API's key auth. Every POST (a sign-in, a sign-up, any form) counts against
  // the client's address like the API's keyless requests (ANONYMOUS_PER_IP a minute, 429 with Retry-After);
  // pages that are only read stay unmetered. Accounts have their own throttle on top.
  // Every form here is small: a body over PAGE_FORM_BODY_LIMIT is refused (413) before it is read or waits
  // for one of the large bodies' turns.
  app.addHook('onRoute', (route) => {
    const posts = [route.method].flat().includes('POST');
    route.config = { ...route.config, unmetered: !posts };
    route.bodyLimit ??= PAGE_FORM_BODY_LIMIT;
  });
  installGuard(app);
  app.setErrorHandler((err, request, reply) => {
    const error = pageError(err, request);
    if (error.headers) reply.headers(error.headers);
    const title = error.status >= 500 ? 'Something went wrong' : 'This request cannot be used';
    return sendMessage(reply, error.status, title, error.status >= 500 ? `${error.message} (request ${request.id})` : error.message);
  });

  await app.register(
    async (dashboard) => {
      dashboard.setNotFoundHandler((_request, reply) => sendMessage(reply, 404, 'Not found', 'There is no such page in the dashboard.'));
      for (const pages of [
        authPages,
        accountPages,
        homePages,
        keyPages,
        webhookPages,
        orderListPages,
        orderDetailPages,
        productPages,
        connectionPages,
        settingsPages,
        notificationPages,
        pwaPages,
      ]) {
        await dashboard.register(pages);
      }
    },
    { prefix: '/dashboard' },
  );
  await app.register(connectPages);
}
