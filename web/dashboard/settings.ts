import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMITS } from '../../domain/rate-limits.js';
import { CONNECTED_SHOPS_PER_PLAN, STORE_MODES, STORE_PLANS } from '../../domain/store.js';
import type { OwnedStore } from '../../services/accounts/stores.js';
import { checkSettings, saveStoreSettings } from '../../services/dashboard/settings.js';
import { storeUrls } from '../../contract/urls.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { planEndWords } from './plan-end.js';
import { sendStorePage, storePath } from './layout.js';
import { fieldError, invalidAttrs, problemsSummary, type FieldErrors } from './render.js';
import { csrfField } from './session.js';

/** A stored numeric ('12.5000') as typed: trailing zeros dropped, exact (no float). */
const plainAmount = (numeric: string) => numeric.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

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
  opts: { status?: number; errors?: FieldErrors; notice?: string | null; form?: URLSearchParams } = {},
) {
  const store = request.ownedStore!;
  const v = (name: string, fallback: string) => opts.form?.get(name) ?? fallback;
  const published = opts.form ? opts.form.get('published') === 'on' : store.published;
  const tracking = storeUrls(request.server.config, store.slug).tracking_url;
  const select = (name: string, values: readonly string[], current: string, words: (v: string) => string = (x) => x) =>
    html`<select id="s-${name}" name="${name}">${values.map((x) => html`<option value="${x}"${x === current ? html` selected` : ''}>${words(x)}</option>`)}</select>`;
  const e = opts.errors;
  const content = html`<form method="post" action="${storePath(store.id, '/settings')}" class="card">${csrfField(request, reply, 'session')}
<label for="s-name">Store name</label><input id="s-name" name="name" required maxlength="120" value="${v('name', store.name)}"${invalidAttrs(e, 'name')}>${fieldError(e, 'name')}
<label for="s-currency">Currency</label><input id="s-currency" name="currency" required maxlength="3" pattern="[A-Za-z]{3}" value="${v('currency', store.currency)}"${invalidAttrs(e, 'currency')}>${fieldError(e, 'currency')}
<label for="s-mode">Mode</label>${select('mode', STORE_MODES, v('mode', store.mode), (m) => MODE_WORDS[m as keyof typeof MODE_WORDS])}${fieldError(e, 'mode')}
<label class="dash-check"><input type="checkbox" name="published"${published ? html` checked` : ''}> Published (the storefront and the products API answer)</label>
<label for="s-fee">Standard delivery fee (${store.currency}; for products without their own fee)</label><input id="s-fee" name="standard_delivery_fee" inputmode="decimal" value="${v('standard_delivery_fee', plainAmount(store.standard_delivery_fee))}"${invalidAttrs(e, 'standard_delivery_fee')}>${fieldError(e, 'standard_delivery_fee')}
<label for="s-tz">Time zone (IANA name; the dashboard shows times in it)</label><input id="s-tz" name="time_zone" maxlength="64" list="time-zones" value="${v('time_zone', store.time_zone)}" placeholder="Africa/Casablanca"${invalidAttrs(e, 'time_zone')}>${fieldError(e, 'time_zone')}
<datalist id="time-zones">${Intl.supportedValuesOf('timeZone').map((z) => html`<option value="${z}">`)}</datalist>${fieldError(e, 'plan')}
<button type="submit">Save the settings</button></form>
<h2>Plan</h2>${planSummary(store)}${plansTable()}<p class="muted">To change the plan, ask the operator of this service. A plan change applies from the next request. When a paid plan ends, limits fall back to the free ones and nothing is deleted: connected shops beyond the free allowance stay, but no new one can be connected, and the tracking page shows the Store Commerce badge again.</p>
<h2>Tracking page</h2><p>Shoppers follow their orders at <a href="${tracking}">${tracking}</a>.</p>`;
  return sendStorePage(request, reply, 'settings', 'Store settings', content, {
    status: opts.status ?? 200,
    error: opts.errors ? problemsSummary(opts.errors) : null,
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
    const checked = checkSettings(form, request.ownedStore!.plan);
    if (!checked.ok) return settingsPage(request, reply, { status: 400, errors: checked.problems, form });
    await saveStoreSettings(app.orm.em, request.ownedStore!.id, checked.settings);
    return reply.redirect(storePath(request.ownedStore!.id, '/settings?done=saved'), 303);
  });
}
