import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMITS } from '../../domain/rate-limits.js';
import { CONNECTED_SHOPS_PER_PLAN, STORE_MODES, STORE_PLANS } from '../../domain/store.js';
import { ApiError } from '../../contract/errors.js';
import type { OwnedStore } from '../../services/accounts/stores.js';
import { parseSettings, saveStoreSettings, type StoreSettings } from '../../services/dashboard/settings.js';
import { storeUrls } from '../../contract/urls.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { planEndWords } from './plan-end.js';
import { sendStorePage, storePath } from './layout.js';
import { csrfField } from './session.js';

type Params = { Params: { storeId: string }; Querystring: { done?: string } };
const MODE_WORDS = {
  full: 'full (catalogue, checkout, orders, tracking)',
  tracking_only: 'tracking only (orders and their tracking)',
} as const;

function plansTable() {
  const cell = (plan: (typeof STORE_PLANS)[number]) => {
    const r = RATE_LIMITS[plan];
    return html`<td>${CONNECTED_SHOPS_PER_PLAN[plan]}</td><td>${r.secret} per key</td><td>${r.publishable} per key, ${r.publishableVisitorIp} per visitor IP</td>`;
  };
  return html`<div class="dash-scroll"><table><thead><tr><th>Plan</th><th>Connected shops</th><th>Secret key requests / min</th><th>Publishable key requests / min</th></tr></thead>
<tbody>${STORE_PLANS.map((p) => html`<tr><th scope="row">${p}</th>${cell(p)}</tr>`)}</tbody></table></div>`;
}

/** The plan in force, read-only: its end when it has one, or when it ended. */
function planSummary(store: OwnedStore) {
  const end = planEndWords(store);
  const ends = end === null ? '' : store.plan === 'paid' ? `, ${end}` : ` (${end})`;
  return html`<p id="plan-summary">This store is on the <strong>${store.plan}</strong> plan${ends}.</p>`;
}

async function settingsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { status?: number; error?: string | null; notice?: string | null; form?: URLSearchParams } = {},
) {
  const store = request.ownedStore!;
  const v = (name: string, fallback: string) => opts.form?.get(name) ?? fallback;
  const published = opts.form ? opts.form.get('published') === 'on' : store.published;
  const tracking = storeUrls(request.server.config, store.slug).tracking_url;
  const select = (name: string, values: readonly string[], current: string, words: (v: string) => string = (x) => x) =>
    html`<select id="s-${name}" name="${name}">${values.map((x) => html`<option value="${x}"${x === current ? html` selected` : ''}>${words(x)}</option>`)}</select>`;
  const content = html`<form method="post" action="${storePath(store.id, '/settings')}" class="card">${csrfField(request, reply, 'session')}
<label for="s-name">Store name</label><input id="s-name" name="name" required maxlength="120" value="${v('name', store.name)}">
<label for="s-currency">Currency</label><input id="s-currency" name="currency" required maxlength="3" pattern="[A-Za-z]{3}" value="${v('currency', store.currency)}">
<label for="s-mode">Mode</label>${select('mode', STORE_MODES, v('mode', store.mode), (m) => MODE_WORDS[m as keyof typeof MODE_WORDS])}
<label class="dash-check"><input type="checkbox" name="published"${published ? html` checked` : ''}> Published (the storefront and the products API answer)</label>
<label for="s-fee">Standard delivery fee (${store.currency}; for products without their own fee)</label><input id="s-fee" name="standard_delivery_fee" inputmode="decimal" value="${v('standard_delivery_fee', String(Number(store.standard_delivery_fee)))}">
<button type="submit">Save the settings</button></form>
<h2>Plan</h2>${planSummary(store)}${plansTable()}<p class="muted">To change the plan, ask the operator of this service. A plan change applies from the next request. When a paid plan ends, limits fall back to the free ones and nothing is deleted: connected shops beyond the free allowance stay, but no new one can be connected, and the tracking page shows the Store Commerce badge again.</p>
<h2>Tracking page</h2><p>Shoppers follow their orders at <a href="${tracking}">${tracking}</a>.</p>`;
  return sendStorePage(request, reply, 'settings', 'Store settings', content, {
    status: opts.status ?? 200,
    error: opts.error ?? null,
    notice: opts.notice ?? null,
  });
}

/** Store settings: name, currency, mode, published, standard delivery fee; the plan read-only (the operator sets it) with each plan's limits; tracking page link. */
export async function settingsPages(app: FastifyInstance) {
  app.get<Params>('/stores/:storeId/settings', async (request, reply) =>
    settingsPage(request, reply, { notice: request.query.done === 'saved' ? 'Saved.' : null }),
  );

  app.post<Params>('/stores/:storeId/settings', async (request, reply) => {
    const form = formOf(request);
    let settings: StoreSettings;
    try {
      settings = parseSettings(form, request.ownedStore!.plan);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return settingsPage(request, reply, { status: 400, error: err.message, form });
    }
    await saveStoreSettings(app.orm.em, request.ownedStore!.id, settings);
    return reply.redirect(storePath(request.ownedStore!.id, '/settings?done=saved'), 303);
  });
}
