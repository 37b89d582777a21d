import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { shopHost } from '../../domain/shop-host.js';
import { ApiError } from '../../contract/errors.js';
import { connectionAllowance, PLATFORMS, type Platform } from '../../services/connections/codes.js';
import { presentConnection } from '../../services/connections/present.js';
import { listUpdates, replayUpdates } from '../../services/connections/updates.js';
import {
  createManualConnection,
  disconnectFromDashboard,
  findStoreConnection,
  listStoreConnections,
} from '../../services/dashboard/connections.js';
import { inWords } from '../../domain/display.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { secretField, sendMessage, when } from './render.js';
import { isConfirmed, sendConfirmation } from './confirm.js';
import { csrfField } from './session.js';

type Params = { Params: { storeId: string; connectionId: string }; Querystring: { done?: string } };
const NOTICES: Record<string, string> = {
  disconnected: 'Disconnected: its key stops working at once, pushes stop, and the copied orders stay.',
};
type Created = { api_key: string; webhook_secret: string; connection_id: string };

async function connectionsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { status?: number; error?: string | null; notice?: string | null; created?: Created } = {},
) {
  const store = request.ownedStore!;
  const em = request.server.orm.em;
  const [connections, allowance] = await Promise.all([listStoreConnections(em, store.id), connectionAllowance(em, store.id)]);
  const cards = [];
  for (const c of connections) {
    const view = await presentConnection(em, c);
    const pending = (await listUpdates(em, c.id, false))
      .filter((u) => u.state === 'waiting' || u.state === 'failed' || u.push_failed)
      .slice(0, 20);
    const action = (path: string, label: string, danger = false) =>
      html`<form class="dash-inline" method="post" action="${storePath(store.id, `/connections/${c.id}/${path}`)}">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small${danger ? ' dash-danger' : ''}">${label}</button></form>`;
    const updates = pending.length
      ? html`<div class="dash-scroll"><table class="dash-compact"><thead><tr><th>Order</th><th>Update</th><th>State</th><th>Attempts</th><th>Last error</th></tr></thead><tbody>${pending.map(
          (
            u,
          ) => html`<tr><td><a href="${storePath(store.id, `/orders/${u.order_id}`)}">${u.number ?? u.external_id}</a></td><td>${u.status ? inWords(u.status) : 'tracking only'}</td>
<td class="${u.state === 'failed' || u.push_failed ? 'error' : ''}">${u.push_failed ? 'push failed' : u.state}</td><td>${u.push_attempts}</td><td>${u.ack_error ?? u.last_push_error ?? ''}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="muted">No waiting or failed updates.</p>`;
    cards.push(html`<section class="card"><h2 class="dash-url">${c.shop_name ?? c.shop_host ?? c.shop_url ?? c.id}</h2><table><tbody>
<tr><th scope="row">Platform</th><td>${c.platform}</td></tr><tr><th scope="row">Shop</th><td class="mono">${c.site_url ?? c.shop_url ?? '—'}</td></tr>
<tr><th scope="row">Status</th><td><span class="dash-status">${inWords(c.status)}</span>${c.status_detail ? html` <span class="muted">${c.status_detail}</span>` : ''}</td></tr>
<tr><th scope="row">Last heartbeat</th><td>${when(c.last_heartbeat_at, store.time_zone)}</td></tr><tr><th scope="row">Plugin version</th><td>${c.plugin_version ?? '—'}</td></tr>
<tr><th scope="row">Platform version</th><td>${c.platform_version ?? '—'}</td></tr><tr><th scope="row">Updates go by</th><td>${c.push_url ? html`push to <span class="mono">${c.push_url}</span>` : 'pull only'}</td></tr>
<tr><th scope="row">Orders synced</th><td>${view.orders_synced} (last ${when(view.last_order_at, store.time_zone)})</td></tr><tr><th scope="row">Updates</th><td>${c.waiting} waiting, ${c.failed} failed</td></tr>
</tbody></table><h3>Waiting and failed updates</h3>${updates}
<p>${c.status === 'active' && c.waiting + c.failed > 0 ? action('replay', 'Send again') : ''} ${c.status === 'active' ? action('disconnect', 'Disconnect this shop', true) : ''}</p></section>`);
  }
  const created = opts.created
    ? html`<div class="card dash-once"><p><strong>Connection created.</strong> Paste these two values into the plugin now: they are shown only this once.</p>
${secretField('conn-key', 'Connection key', opts.created.api_key)}${secretField('conn-secret', 'Signing secret (verifies pushed updates)', opts.created.webhook_secret)}
<p class="muted">API base URL: <span class="mono">${request.server.config.baseUrl}</span> · connection ${opts.created.connection_id}</p></div>`
    : html``;
  const form = html`<h2>Connect a shop manually</h2><p class="muted">The usual way is the plugin's “Connect” button. Use this when the shop cannot reach this page.</p>
<form method="post" action="${storePath(store.id, '/connections')}" class="card">${csrfField(request, reply, 'session')}
<label for="c-platform">Platform</label><select id="c-platform" name="platform">${PLATFORMS.map((p) => html`<option value="${p}">${p}</option>`)}</select>
<label for="c-site">Shop address</label><input id="c-site" name="site_url" type="url" required maxlength="2000" placeholder="https://shop.example">
<label for="c-name">Shop name (optional)</label><input id="c-name" name="shop_name" maxlength="200"><button type="submit">Create the connection</button></form>`;
  const header = html`<p>${allowance.active} of ${allowance.limit} connected shop(s) used on the ${allowance.plan} plan.${allowance.full ? html` Disconnect a shop to add another, or ask the operator for the paid plan (<a href="${storePath(store.id, '/settings')}">plans</a>).` : ''}</p>`;
  return sendStorePage(
    request,
    reply,
    'connections',
    'Connected shops',
    html`${created}${header}${
      cards.length
        ? cards
        : html`<p class="dash-empty">No connected shops yet. Install the Store Commerce plugin in your shop and press its “Connect” button, or connect a shop manually below.</p>`
    }${form}`,
    {
      status: opts.status ?? 200,
      error: opts.error ?? null,
      notice: opts.notice ?? null,
      copyButtons: !!opts.created,
    },
  );
}

/** Connections: each shop's status, heartbeat, plugin version, waiting and failed updates, "send again", disconnect, and the manual connection. */
export async function connectionPages(app: FastifyInstance) {
  app.get<Params>('/stores/:storeId/connections', async (request, reply) => {
    const replayed = /^replayed-(\d+)$/.exec(request.query.done ?? '');
    return connectionsPage(request, reply, {
      notice: replayed ? `${replayed[1]} update(s) will be sent again now.` : (NOTICES[request.query.done ?? ''] ?? null),
    });
  });

  app.post<Params>('/stores/:storeId/connections', async (request, reply) => {
    const form = formOf(request);
    const platform = form.get('platform') as Platform;
    const siteUrl = (form.get('site_url') ?? '').trim();
    if (!PLATFORMS.includes(platform)) return connectionsPage(request, reply, { status: 400, error: 'Pick the platform.' });
    if (siteUrl.length > 2000 || !shopHost(siteUrl))
      return connectionsPage(request, reply, {
        status: 400,
        error: 'The shop address must be an http(s) address such as https://shop.example.',
      });
    try {
      const created = await createManualConnection(app.orm.em, {
        storeId: request.ownedStore!.id,
        platform,
        siteUrl,
        shopName: (form.get('shop_name') ?? '').trim().slice(0, 200) || null,
        secretsKey: app.config.secretsKey!,
      });
      return connectionsPage(request, reply, { created });
    } catch (err) {
      // The plan's limit of connected shops.
      if (err instanceof ApiError && err.code === 'conflict')
        return connectionsPage(request, reply, {
          status: 409,
          error: `${err.message} Disconnect a shop, or ask the operator of this service to move the store to the paid plan.`,
        });
      throw err;
    }
  });

  for (const action of ['replay', 'disconnect'] as const) {
    const handler = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
      const store = request.ownedStore!;
      const connection = await findStoreConnection(app.orm.em, store.id, request.params.connectionId);
      if (!connection)
        return sendMessage(reply, 404, 'Not found', 'This store has no such connected shop.', {
          href: storePath(store.id, '/connections'),
          text: 'Back to the connections',
        });
      if (action === 'disconnect') {
        if (!isConfirmed(request))
          return sendConfirmation(request, reply, {
            tab: 'connections',
            title: 'Disconnect this shop?',
            item: `${connection.shop_name ?? connection.shop_host ?? connection.id} (${connection.site_url ?? connection.shop_url ?? connection.platform})`,
            consequence:
              'Its connection key stops working at once and no more updates are pushed to it. The orders already copied stay. To connect it again, the owner uses the plugin’s “Connect” button.',
            action: storePath(store.id, `/connections/${connection.id}/disconnect`),
            button: 'Disconnect the shop',
            back: '/connections',
          });
        await disconnectFromDashboard(app.orm.em, connection.id);
        return reply.redirect(storePath(store.id, '/connections?done=disconnected'), 303);
      }
      const count = await replayUpdates(app.orm.em, connection.id);
      return reply.redirect(storePath(store.id, `/connections?done=replayed-${count}`), 303);
    };
    app.post<Params>(`/stores/:storeId/connections/:connectionId/${action}`, handler);
    // The confirmation page of a disconnect may be opened by a link as well.
    if (action === 'disconnect') app.get<Params>(`/stores/:storeId/connections/:connectionId/${action}`, handler);
  }
}
