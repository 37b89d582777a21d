import { ApiError } from '../../contract/errors.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONNECTED_SHOPS_PER_PLAN } from '../../domain/store.js';
import { planEndWords } from './plan-end.js';
import { createOwnedStore, findOwnedStore, listOwnedStores } from '../../services/accounts/stores.js';
import { storeCounts } from '../../services/dashboard/scoped.js';
import { storeUrls } from '../../contract/urls.js';
import { inWords } from '../../domain/display.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { sendAccountPage, sendStorePage, storePath } from './layout.js';
import { sendMessage } from './render.js';
import { csrfField } from './session.js';

/** Reads the "create a store" form; the problem in words, or the new store's name and currency. */
export function newStoreInput(form: URLSearchParams): { ok: true; name: string; currency: string } | { ok: false; message: string } {
  const name = (form.get('name') ?? '').trim();
  const currency = (form.get('currency') || 'USD').trim().toUpperCase();
  if (!name || name.length > 120) return { ok: false, message: 'Give the store a name (up to 120 characters).' };
  if (!/^[A-Z]{3}$/.test(currency)) return { ok: false, message: 'The currency must be a three-letter code such as USD or EUR.' };
  return { ok: true, name, currency };
}

async function storeList(request: FastifyRequest, reply: FastifyReply, opts: { status?: number; error?: string; name?: string } = {}) {
  const stores = await listOwnedStores(request.server.orm.em, request.ownerSession!.owner.id);
  const list = stores.length
    ? html`<ul class="dash-list">${stores.map((s) => html`<li><a href="${storePath(s.id)}">${s.name}</a> <span class="muted">${s.plan} plan · ${s.currency}</span></li>`)}</ul>`
    : html`<p class="dash-empty">You have no store yet. Create your first one below; then add products or connect your shop.</p>`;
  const form = html`<h2>Create a store</h2><form method="post" action="/dashboard/stores" class="card">${csrfField(request, reply, 'session')}
<label for="new-name">Store name</label><input id="new-name" name="name" required maxlength="120" value="${opts.name ?? ''}">
<label for="new-currency">Currency</label><input id="new-currency" name="currency" value="USD" pattern="[A-Za-z]{3}" maxlength="3">
<button type="submit">Create the store</button></form>`;
  return sendAccountPage(request, reply, 'Your stores', html`${list}${form}`, { status: opts.status ?? 200, error: opts.error ?? null });
}

/** The store list with "create a store", the store switcher's target, and each store's overview (its dashboard_url). */
export async function homePages(app: FastifyInstance) {
  app.get('/', async (request, reply) => storeList(request, reply));

  app.get<{ Querystring: { store?: string } }>('/go', async (request, reply) => {
    const store = await findOwnedStore(app.orm.em, request.ownerSession!.owner.id, request.query.store ?? '');
    return store ? reply.redirect(storePath(store.id), 303) : sendMessage(reply, 404, 'Not found', 'There is no such store among yours.');
  });

  app.post('/stores', async (request, reply) => {
    const input = newStoreInput(formOf(request));
    if (!input.ok) return storeList(request, reply, { status: 400, error: input.message, name: formOf(request).get('name') ?? '' });
    try {
      const id = await createOwnedStore(app.orm.em, request.ownerSession!.owner.id, { name: input.name, currency: input.currency });
      return reply.redirect(storePath(id, '?done=created'), 303);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return storeList(request, reply, { status: err.status, error: err.message, name: input.name });
    }
  });

  app.get<{ Params: { storeId: string }; Querystring: { done?: string } }>('/stores/:storeId', async (request, reply) => {
    const store = request.ownedStore!;
    const counts = await storeCounts(app.orm.em, store.id);
    const urls = storeUrls(app.config, store.slug);
    const tile = (label: string, value: number | string, rest: string) =>
      html`<a class="card dash-tile" href="${storePath(store.id, rest)}"><strong>${value}</strong><span>${label}</span></a>`;
    const content = html`<div class="dash-tiles">${tile('orders', counts.orders, '/orders')}${tile('active keys', counts.keys, '/keys')}${tile('webhook endpoints', counts.webhooks, '/webhooks')}${tile(`connected shops of ${CONNECTED_SHOPS_PER_PLAN[store.plan]}`, counts.connections, '/connections')}</div>
<table><tbody>
<tr><th scope="row">Store id</th><td class="mono">${store.id}</td></tr>
<tr><th scope="row">Plan</th><td>${store.plan}${planEndWords(store) ? `, ${planEndWords(store)}` : ''}</td></tr>
<tr><th scope="row">Mode</th><td>${inWords(store.mode)}</td></tr>
<tr><th scope="row">Time zone</th><td>${store.time_zone}</td></tr>
<tr><th scope="row">Currency</th><td>${store.currency}</td></tr>
<tr><th scope="row">Published</th><td>${store.published ? 'yes' : 'no'}</td></tr>
<tr><th scope="row">Storefront</th><td><a href="${urls.url}">${urls.url}</a></td></tr>
<tr><th scope="row">Tracking page</th><td><a href="${urls.tracking_url}">${urls.tracking_url}</a></td></tr>
<tr><th scope="row">API base URL</th><td class="mono">${app.config.baseUrl}</td></tr>
</tbody></table>`;
    return sendStorePage(request, reply, 'overview', 'Overview', content, {
      notice: request.query.done === 'created' ? 'Your store is ready. Create a key to start using the API.' : null,
    });
  });
}
