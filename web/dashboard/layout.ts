import type { FastifyReply, FastifyRequest } from 'fastify';
import { listOwnedStores } from '../../services/accounts/stores.js';
import { html, type SafeHtml } from '../html.js';
import { flash, sendPage, type PageOptions } from './render.js';
import { csrfField } from './session.js';

export const TABS = [
  ['overview', 'Overview', ''],
  ['orders', 'Orders', '/orders'],
  ['products', 'Products', '/products'],
  ['keys', 'Keys', '/keys'],
  ['webhooks', 'Webhooks', '/webhooks'],
  ['connections', 'Connections', '/connections'],
  ['notifications', 'Notifications', '/notifications'],
  ['settings', 'Settings', '/settings'],
] as const;
export type Tab = (typeof TABS)[number][0];

export interface LayoutOptions extends PageOptions {
  notice?: string | null;
  error?: string | null;
}

/** The dashboard path of a store, or of one of its pages. */
export const storePath = (storeId: string, rest = '') => `/dashboard/stores/${storeId}${rest}`;

/** The account bar: who is signed in, the store switcher, sign out. */
async function accountBar(request: FastifyRequest, reply: FastifyReply, currentStoreId?: string): Promise<SafeHtml> {
  const owner = request.ownerSession!.owner;
  const stores = await listOwnedStores(request.server.orm.em, owner.id);
  const switcher = stores.length
    ? html`<form class="dash-inline" method="get" action="/dashboard/go"><label class="dash-sr" for="store-switch">Store</label>
<select id="store-switch" name="store">${stores.map((s) => html`<option value="${s.id}"${s.id === currentStoreId ? html` selected` : ''}>${s.name}</option>`)}</select>
<button type="submit" class="dash-small">Switch</button></form>`
    : html``;
  return html`<nav class="dash-bar" aria-label="Account">${switcher}<a href="/dashboard">All stores</a>
<a href="/dashboard/account" class="muted">${owner.email}</a>
<form class="dash-inline" method="post" action="/dashboard/sign-out">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small dash-plain">Sign out</button></form></nav>`;
}

/** A page of one store: account bar, the store's tabs, heading, notice or error, content. */
export async function sendStorePage(
  request: FastifyRequest,
  reply: FastifyReply,
  tab: Tab,
  title: string,
  content: SafeHtml,
  opts: LayoutOptions = {},
) {
  const store = request.ownedStore!;
  const tabs = TABS.map(
    ([id, label, rest]) => html`<a href="${storePath(store.id, rest)}"${id === tab ? html` aria-current="page"` : ''}>${label}</a>`,
  );
  const body = html`<div class="dash">${await accountBar(request, reply, store.id)}
<p class="muted dash-store">${store.name}</p><nav class="dash-tabs" aria-label="Store">${tabs}</nav>
<h1>${title}</h1>${flash('notice', opts.notice)}${flash('errors', opts.error)}${content}</div>`;
  return sendPage(reply, `${title} · ${store.name}`, body, opts);
}

/** A signed-in page outside any store (the store list). */
export async function sendAccountPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  content: SafeHtml,
  opts: LayoutOptions = {},
) {
  const body = html`<div class="dash">${await accountBar(request, reply)}<h1>${title}</h1>${flash('notice', opts.notice)}${flash('errors', opts.error)}${content}</div>`;
  return sendPage(reply, title, body, opts);
}
