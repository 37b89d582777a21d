import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { connectReturnUrl, parseConnectRequest, type ConnectError, type ConnectRequest } from '../domain/connect-request.js';
import { createOwnedStore, findOwnedStore, listOwnedStores } from '../services/accounts/stores.js';
import { ApiError } from '../contract/errors.js';
import { approveConnection, connectionAllowance } from '../services/connections/codes.js';
import { html, type SafeHtml } from './html.js';
import { signInForm, signUpForm } from './dashboard/auth.js';
import { formOf } from './dashboard/guard.js';
import { newStoreInput } from './dashboard/home.js';
import { sendPage } from './dashboard/render.js';
import { csrfField } from './dashboard/session.js';

type Route = { Params: { platform: string }; Querystring: Record<string, unknown> };
const FIELDS = ['site_url', 'return_url', 'state', 'name', 'currency', 'v'] as const;
const one = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The error page of a request the page cannot use; `back` (the plugin's return_url with svc_error) is offered as a link, never followed by itself. */
function invalidPage(reply: FastifyReply, problems: string[], back?: string) {
  const link = back
    ? html`<p><a href="${back}" rel="noreferrer">Back to ${new URL(back).host}</a> (the address the request named: follow it only if it is your shop).</p>`
    : '';
  const body = html`<div class="dash dash-narrow"><h1>This connection request cannot be used</h1><ul class="errors">${problems.map((p) => html`<li>${p}</li>`)}</ul>
<p>Go back to your shop’s admin and start the connection again from the plugin. If it keeps failing, the plugin needs an update.</p>${link}</div>`;
  return sendPage(reply, 'Invalid connection request', body, { status: 400 });
}

function shopBox(req: ConnectRequest): SafeHtml {
  return html`<div class="card dash-shop"><p class="muted">A ${req.platform} shop asks to connect${req.version ? ` (plugin ${req.version})` : ''}:</p>
<p class="dash-shop-url mono">${req.siteUrl}</p>${req.name ? html`<p>${req.name}</p>` : ''}
<p class="muted">Approve only if this is your shop. You will be sent back to <span class="mono">${new URL(req.returnUrl).host}</span>.</p></div>`;
}

const hidden = (req: ConnectRequest, query: (n: string) => string | undefined) =>
  FIELDS.map((name) =>
    query(name) === undefined
      ? ''
      : html`<input type="hidden" name="${name}" value="${name === 'site_url' ? req.siteUrl : name === 'return_url' ? req.returnUrl : query(name)}">`,
  );

/** The page a signed-in owner approves or declines on: pick a store (or a new one), then Approve or Decline. */
async function approvalPage(request: FastifyRequest, reply: FastifyReply, req: ConnectRequest, query: (n: string) => string | undefined) {
  const em = request.server.orm.em;
  const owner = request.ownerSession!.owner;
  const stores = await listOwnedStores(em, owner.id);
  const allowances = await Promise.all(stores.map((s) => connectionAllowance(em, s.id)));
  const firstOpen = stores.findIndex((_s, i) => !allowances[i]!.full);
  const choices = stores.map((s, i) => {
    const a = allowances[i]!;
    return html`<label class="dash-check"><input type="radio" name="store" value="${s.id}"${i === firstOpen ? html` checked` : ''}> ${s.name} <span class="muted">(${a.active} of ${a.limit} connected shops on the ${a.plan} plan${a.full ? '; full' : ''})</span></label>`;
  });
  const body = html`<div class="dash dash-narrow"><h1>Connect a shop</h1>
${shopBox(req)}<form method="post" action="/connect/${req.platform}" class="card">${csrfField(request, reply, 'session')}${hidden(req, query)}
<fieldset><legend>Connect it to</legend>${choices}
<label class="dash-check"><input type="radio" name="store" value="new"${firstOpen === -1 ? html` checked` : ''}> a new store</label>
${allowances.some((a) => a.full) ? html`<p class="muted">A full store cannot take another shop: approving it sends you back to the shop with nothing connected.</p>` : ''}
<label for="new-name">New store’s name</label><input id="new-name" name="new_name" maxlength="120" value="${req.name ?? req.host}">
<label for="new-currency">New store’s currency</label><input id="new-currency" name="new_currency" maxlength="3" value="${req.currency ?? 'USD'}"></fieldset>
<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="decline" class="dash-plain">Decline</button></form>
<p class="muted">Signed in as ${owner.email}.</p></div>`;
  // CSP form-action also governs the redirect that follows the form, so the shop's origin is allowed here.
  return sendPage(reply, 'Connect a shop', body, { formTargets: [new URL(req.returnUrl).origin] });
}

function signedOutPage(request: FastifyRequest, reply: FastifyReply, req: ConnectRequest) {
  const next = request.url;
  const body = html`<div class="dash dash-narrow"><h1>Connect a shop</h1>${shopBox(req)}<p>Sign in to Store Commerce, or create an account, to continue.</p>
<h2>Sign in</h2>${signInForm(request, reply, next)}<h2>New here? Create an account</h2>${signUpForm(request, reply, next)}</div>`;
  return sendPage(reply, 'Connect a shop', body);
}

/**
 * The connect page of the spec's Connection flow: GET shows it (sign-in first when needed), POST approves
 * or declines. A GET the page cannot use is an error page here, with a link back to return_url (svc_error
 * and state) when it is on site_url's host: both come from the same query, so nothing proves them the shop's
 * and nobody acted yet; an automatic redirect would make this page an open redirect. A failure after a
 * signed-in owner posted the form goes back to the plugin (303). A POST that fails the form check (another
 * site's form) stays here too (the guard's 403).
 */
export async function connectPages(app: FastifyInstance) {
  app.get<Route>('/connect/:platform', { config: { dashboardPublic: true } }, async (request, reply) => {
    const query = (name: string) => one(request.query[name]);
    const parsed = parseConnectRequest(request.params.platform, query);
    if (!parsed.ok)
      return invalidPage(
        reply,
        parsed.problems,
        parsed.returnTo ? connectReturnUrl(parsed.returnTo, { error: 'invalid_request' }) : undefined,
      );
    return request.ownerSession ? approvalPage(request, reply, parsed.request, query) : signedOutPage(request, reply, parsed.request);
  });

  app.post<Route>('/connect/:platform', async (request, reply) => {
    const form = formOf(request);
    const query = (name: string) => form.get(name) ?? undefined;
    const parsed = parseConnectRequest(request.params.platform, query);
    if (!parsed.ok)
      return parsed.returnTo
        ? reply.redirect(connectReturnUrl(parsed.returnTo, { error: 'invalid_request' }), 303)
        : invalidPage(reply, parsed.problems);
    const req = parsed.request;
    const back = (error: ConnectError) => reply.redirect(connectReturnUrl(req, { error }), 303);
    if (form.get('decision') !== 'approve') return back('access_denied');
    const owner = request.ownerSession!.owner;
    let storeId: string;
    if (form.get('store') === 'new') {
      const input = newStoreInput(new URLSearchParams({ name: form.get('new_name') ?? '', currency: form.get('new_currency') ?? '' }));
      if (!input.ok) return back('invalid_request');
      try {
        storeId = await createOwnedStore(app.orm.em, owner.id, { name: input.name, currency: input.currency });
      } catch (err) {
        // The account's store cap: said on the page, not sent back to the shop as a failed request.
        if (!(err instanceof ApiError)) throw err;
        return sendPage(
          reply,
          'Cannot create the store',
          html`<div class="dash dash-narrow"><h1>Cannot create the store</h1><p class="errors">${err.message}</p><p>Pick one of your stores instead.</p></div>`,
          { status: err.status },
        );
      }
    } else {
      // Not one of the owner's stores (or none picked): the same answer as a store that does not exist.
      const store = await findOwnedStore(app.orm.em, owner.id, form.get('store') ?? '');
      if (!store) return back('invalid_request');
      storeId = store.id;
    }
    try {
      const { code } = await approveConnection(app.orm.em, {
        storeId,
        platform: req.platform,
        siteUrl: req.siteUrl,
        shopName: req.name,
        currency: req.currency,
        ttlSeconds: app.config.connectCodeTtlSeconds,
      });
      return reply.redirect(connectReturnUrl(req, { code }), 303);
    } catch (err) {
      // The plan's limit of connected shops (checked under the store's row lock, so the page's "full" may be stale).
      if (!(err instanceof ApiError && err.code === 'conflict')) throw err;
      return back('plan_limit');
    }
  });
}
