import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../contract/errors.js';
import { deletePushSubscription, savePushSubscription } from '../../services/notifications/push-subscriptions.js';
import { PAGE_HEADERS } from '../html.js';
import { dashboardIconPng } from '../pwa-icons.js';
import { formOf } from './guard.js';
import { SERVICE_WORKER } from './pwa-scripts.js';
import { targetPolicy } from '../../config/env.js';

type Params = { Params: { storeId: string } };

// The security headers of the pages, for what is not a page: nothing here may be framed or sniffed.
const { 'content-type': _html, ...SECURITY_HEADERS } = PAGE_HEADERS;
const ICONS = { 192: dashboardIconPng(192), 512: dashboardIconPng(512) };

/** The web app manifest: the dashboard installs as a standalone app that opens on the store list. */
const MANIFEST = JSON.stringify({
  name: 'Store Commerce dashboard',
  short_name: 'Store',
  id: '/dashboard',
  start_url: '/dashboard',
  scope: '/dashboard/',
  display: 'standalone',
  background_color: '#fbfbfd',
  theme_color: '#0b63ce',
  icons: [
    { src: '/dashboard/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any maskable' },
    { src: '/dashboard/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
  ],
});

/**
 * The dashboard as an installable web app (manifest, icons, service worker: public, like any app shell)
 * and the device subscriptions behind "notifications for new orders" (owner session, form token).
 */
export async function pwaPages(app: FastifyInstance) {
  const open = { config: { dashboardPublic: true } };
  app.get('/manifest.webmanifest', open, async (_request, reply) =>
    reply.headers({ ...SECURITY_HEADERS, 'content-type': 'application/manifest+json; charset=utf-8' }).send(MANIFEST),
  );
  app.get('/sw.js', open, async (_request, reply) =>
    // no-cache: browsers check for a new worker at every registration, so a changed one takes over soon.
    reply
      .headers({ ...SECURITY_HEADERS, 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' })
      .send(SERVICE_WORKER),
  );
  for (const size of [192, 512] as const)
    app.get(`/icon-${size}.png`, open, async (_request, reply) =>
      reply.headers({ ...SECURITY_HEADERS, 'content-type': 'image/png', 'cache-control': 'public, max-age=86400' }).send(ICONS[size]),
    );

  // Answered in plain text: the page script shows the text when it is a refusal.
  const refuse = (err: unknown) => {
    if (err instanceof ApiError) return { status: err.status, text: err.message };
    throw err;
  };
  app.post<Params>('/stores/:storeId/push-subscriptions', async (request, reply) => {
    const form = formOf(request);
    try {
      await savePushSubscription(
        app.orm.em,
        {
          storeId: request.ownedStore!.id,
          ownerId: request.ownerSession!.owner.id,
          endpoint: form.get('endpoint') ?? '',
          p256dh: form.get('p256dh') ?? '',
          auth: form.get('auth') ?? '',
        },
        { policy: targetPolicy(app.config), resolve: app.resolve },
      );
      return reply.status(201).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send('subscribed');
    } catch (err) {
      const { status, text } = refuse(err);
      return reply.status(status).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send(text);
    }
  });
  app.post<Params>('/stores/:storeId/push-subscriptions/delete', async (request, reply) => {
    const deleted = await deletePushSubscription(app.orm.em, request.ownedStore!.id, formOf(request).get('endpoint') ?? '');
    return reply
      .headers(SECURITY_HEADERS)
      .type('text/plain; charset=utf-8')
      .send(deleted ? 'unsubscribed' : 'not subscribed');
  });
}
