import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../contract/errors.js';
import { chatMessagesAllowed } from '../../domain/plan.js';
import {
  DEFAULT_CHAT_API_VERSION,
  DEFAULT_CHAT_BASE_URL,
  readChatSettings,
  saveChatSettings,
} from '../../services/notifications/chat-settings.js';
import { countPushSubscriptions } from '../../services/notifications/push-subscriptions.js';
import { vapidPublicKey } from '../../services/notifications/vapid.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { csrfField } from './session.js';
import { targetPolicy } from '../../config/env.js';

type Params = { Params: { storeId: string }; Querystring: { done?: string } };

async function notificationsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { status?: number; error?: string | null; notice?: string | null; form?: URLSearchParams } = {},
) {
  const app = request.server;
  const store = request.ownedStore!;
  const [devices, chat, vapidKey] = await Promise.all([
    countPushSubscriptions(app.orm.em, store.id),
    readChatSettings(app.orm.em, store.id),
    vapidPublicKey(app.orm.em, app.config.secretsKey!),
  ]);
  const v = (name: string, fallback: string) => opts.form?.get(name) ?? fallback;
  const enabled = opts.form ? opts.form.get('enabled') === 'on' : (chat?.enabled ?? false);
  const allowed = chatMessagesAllowed({ plan: store.plan, paidUntil: store.paid_until });
  const push = html`<h2>New orders on this phone</h2><div class="card" id="push-card">
<p>Get a notification on this phone or computer for every new order (never for orders imported as backfill). On a phone,
add the dashboard to the Home Screen first (browser menu, then "Add to Home Screen" or "Install app") and open it from there.</p>
<p id="push-state" class="muted" role="status">${devices === 0 ? 'No device has notifications on for this store yet.' : `${devices} device(s) have notifications on for this store.`}</p>
<button type="button" id="push-toggle" hidden data-key="${vapidKey}" data-subscribe="${storePath(store.id, '/push-subscriptions')}" data-unsubscribe="${storePath(store.id, '/push-subscriptions/delete')}">Turn on notifications for new orders</button>${csrfField(request, reply, 'session')}</div>`;
  const chatForm = html`<h2>Chat message to the shopper</h2>
<p>For cash-on-delivery sellers who confirm orders by chat: when an order is created, the shopper gets a WhatsApp message
(WhatsApp Cloud API) from your business number, with the order number and total (and, if you name a template for it, another one when the order ships). One attempt per order; the order page shows
whether it was sent. Orders imported as backfill never get one. The shopper's phone must be written with + and the country code.</p>
${allowed ? '' : html`<p class="notice">Chat order messages are for paid plans only: nothing is sent while the store is on the free plan.</p>`}
<form method="post" action="${storePath(store.id, '/notifications/chat')}" class="card">${csrfField(request, reply, 'session')}
<label class="dash-check"><input type="checkbox" name="enabled"${enabled ? html` checked` : ''}${allowed ? '' : html` disabled`}> Send a chat message for every new order</label>
<label for="c-base">API base URL</label><input id="c-base" name="base_url" required maxlength="2000" value="${v('base_url', chat?.baseUrl ?? DEFAULT_CHAT_BASE_URL)}">
<label for="c-version">API version</label><input id="c-version" name="api_version" required maxlength="16" value="${v('api_version', chat?.apiVersion ?? DEFAULT_CHAT_API_VERSION)}">
<label for="c-phone">Phone number id (of the business number, from the WhatsApp Manager)</label><input id="c-phone" name="phone_number_id" required maxlength="30" inputmode="numeric" value="${v('phone_number_id', chat?.phoneNumberId ?? '')}">
<label for="c-token">Access token${chat?.hasToken ? ' (one is stored; leave empty to keep it)' : ''}</label><input id="c-token" name="token" type="password" autocomplete="off" maxlength="2000"${chat?.hasToken ? '' : html` required`}>
<label for="c-template">Template name</label><p class="muted">An approved template whose body takes {{1}} the order number and {{2}} the total. Empty sends plain text, which reaches only shoppers who wrote to you in the last 24 hours.</p><input id="c-template" name="template_name" maxlength="512" value="${v('template_name', chat?.templateName ?? '')}">
<label for="c-shipped">Template for shipped orders (optional)</label><p class="muted">When set, the shopper also gets this template when the order ships, with {{1}} the order number and {{2}} its tracking page. Empty: no message when orders ship.</p><input id="c-shipped" name="shipped_template_name" maxlength="512" value="${v('shipped_template_name', chat?.shippedTemplateName ?? '')}">
<label for="c-lang">Template language (of both templates)</label><input id="c-lang" name="template_language" required maxlength="8" value="${v('template_language', chat?.templateLanguage ?? 'en_US')}">
<button type="submit">Save the chat settings</button></form>`;
  return sendStorePage(request, reply, 'notifications', 'Notifications', html`${push}${chatForm}`, {
    status: opts.status ?? 200,
    error: opts.error ?? null,
    notice: opts.notice ?? null,
    pwaScript: true,
  });
}

/** Notifications: this device's new-order push (on/off) and the store's chat order messages (paid plans). */
export async function notificationPages(app: FastifyInstance) {
  app.get<Params>('/stores/:storeId/notifications', async (request, reply) =>
    notificationsPage(request, reply, { notice: request.query.done === 'saved' ? 'Saved.' : null }),
  );

  app.post<Params>('/stores/:storeId/notifications/chat', async (request, reply) => {
    const store = request.ownedStore!;
    const form = formOf(request);
    const text = (name: string) => (form.get(name) ?? '').trim();
    try {
      await saveChatSettings(
        app.orm.em,
        store.id,
        {
          enabled: form.get('enabled') === 'on' && chatMessagesAllowed({ plan: store.plan, paidUntil: store.paid_until }),
          baseUrl: text('base_url'),
          apiVersion: text('api_version'),
          phoneNumberId: text('phone_number_id'),
          token: text('token'),
          templateName: text('template_name'),
          templateLanguage: text('template_language'),
          shippedTemplateName: text('shipped_template_name'),
        },
        { secretsKey: app.config.secretsKey!, policy: targetPolicy(app.config), resolve: app.resolve },
      );
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return notificationsPage(request, reply, { status: 400, error: err.message, form });
    }
    return reply.redirect(storePath(store.id, '/notifications?done=saved'), 303);
  });
}
