import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DEFAULT_SECRET_SCOPES,
  GRANTABLE_SECRET_SCOPES,
  LEGACY_SCOPES,
  PUBLISHABLE_SCOPES,
  type KeyKindInput,
} from '../../domain/scopes.js';
import { createKey, findStoreWithKeys, normalizeOrigin } from '../../services/stores.js';
import { revokeStoreKey } from '../../services/dashboard/scoped.js';
import { html, type SafeHtml } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { secretField, sendMessage, when } from './render.js';
import { isConfirmed, sendConfirmation } from './confirm.js';
import { csrfField } from './session.js';

type Params = { Params: { storeId: string; keyId: string }; Querystring: { done?: string } };
const KINDS: KeyKindInput[] = ['secret', 'publishable', 'legacy'];

/** Reads the "create a key" form into the service's input; a problem in words otherwise. */
export function newKeyInput(
  form: URLSearchParams,
): { ok: true; kind: KeyKindInput; scopes: string[]; origins: string[]; label: string | null } | { ok: false; message: string } {
  const kind = form.get('kind') as KeyKindInput;
  if (!KINDS.includes(kind)) return { ok: false, message: 'Pick the kind of key.' };
  const chosen = form.getAll('scopes');
  // Ticked permissions the kind may not hold are dropped (the form ticks secret-key defaults); the result is shown.
  const scopes =
    kind === 'legacy'
      ? [...LEGACY_SCOPES]
      : chosen.filter((s) => (kind === 'publishable' ? PUBLISHABLE_SCOPES : GRANTABLE_SECRET_SCOPES).includes(s as never));
  if (kind !== 'legacy' && scopes.length === 0) return { ok: false, message: `Tick at least one permission a ${kind} key may hold.` };
  const lines = (form.get('origins') ?? '').split(/[\s,]+/).filter(Boolean);
  if (kind !== 'publishable' && lines.length) return { ok: false, message: 'Only publishable keys have allowed websites.' };
  const origins: string[] = [];
  for (const line of lines.slice(0, 50)) {
    try {
      origins.push(normalizeOrigin(line));
    } catch {
      return { ok: false, message: `“${line}” is not a website origin; write it as https://shop.example (no path).` };
    }
  }
  const label = (form.get('label') ?? '').trim().slice(0, 100) || null;
  return { ok: true, kind, scopes, origins: [...new Set(origins)], label };
}

function createForm(request: FastifyRequest, reply: FastifyReply): SafeHtml {
  const store = request.ownedStore!;
  const box = (scope: string) =>
    html`<label class="dash-check"><input type="checkbox" name="scopes" value="${scope}"${DEFAULT_SECRET_SCOPES.includes(scope as never) ? html` checked` : ''}> ${scope}${PUBLISHABLE_SCOPES.includes(scope as never) ? '' : html` <span class="muted">(secret keys only)</span>`}</label>`;
  return html`<h2>Create a key</h2><form method="post" action="${storePath(store.id, '/keys')}" class="card">${csrfField(request, reply, 'session')}
<fieldset><legend>Kind</legend>
<label class="dash-check"><input type="radio" name="kind" value="secret" checked> Secret — for servers; the permissions you tick below</label>
<label class="dash-check"><input type="radio" name="kind" value="publishable"> Publishable — for browser code; only products:read, checkout:write, tracking:read, and only from the allowed websites</label>
<label class="dash-check"><input type="radio" name="kind" value="legacy"> Legacy — for older integrations; always orders:read and webhooks:write</label></fieldset>
<fieldset><legend>Permissions</legend>${GRANTABLE_SECRET_SCOPES.map(box)}</fieldset>
<label for="key-origins">Allowed websites (publishable keys; one per line, e.g. https://shop.example)</label><textarea id="key-origins" name="origins" rows="2"></textarea>
<label for="key-label">Label (optional)</label><input id="key-label" name="label" maxlength="100">
<button type="submit">Create the key</button></form>`;
}

async function keysPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: {
    status?: number;
    error?: string | null;
    notice?: string | null;
    created?: { kind: string; plain: string; scopes: string[] };
  } = {},
) {
  const store = request.ownedStore!;
  const { keys } = (await findStoreWithKeys(request.server.orm.em, store.id))!;
  const rows = keys.map(
    (
      k,
    ) => html`<tr><td>${k.connectionId ? 'connection' : k.kind}${k.label ? html`<br><span class="muted">${k.label}</span>` : ''}</td><td class="mono">${k.prefix}</td>
<td>${k.scopes.join(', ')}</td><td>${k.origins.length ? k.origins.join(', ') : '—'}</td><td>${when(k.createdAt, store.time_zone)}</td><td>${k.lastUsedAt ? when(k.lastUsedAt, store.time_zone) : '—'}</td>
<td>${k.revokedAt ? html`revoked ${when(k.revokedAt, store.time_zone)}` : html`<form method="post" action="${storePath(store.id, `/keys/${k.id}/revoke`)}">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small dash-danger">Revoke</button></form>`}</td></tr>`,
  );
  const created = opts.created
    ? html`<div class="card dash-once"><p><strong>Your new ${opts.created.kind} key.</strong> Copy it now: it is shown only this once and cannot be recovered.</p>${secretField('new-key', 'Key', opts.created.plain)}<p class="muted">Permissions: ${opts.created.scopes.join(', ')}</p></div>`
    : html``;
  const table = keys.length
    ? html`<div class="dash-scroll"><table><thead><tr><th>Kind</th><th>Prefix</th><th>Permissions</th><th>Allowed websites</th><th>Created</th><th>Last used</th><th>Revoked</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p class="dash-empty">No keys yet. Create one below: a secret key for your server or plugin, a publishable key for your website's browser code.</p>`;
  return sendStorePage(request, reply, 'keys', 'API keys', html`${created}${table}${createForm(request, reply)}`, {
    status: opts.status ?? 200,
    error: opts.error ?? null,
    notice: opts.notice ?? null,
    copyButtons: !!opts.created,
  });
}

/** Keys: the list (revoked ones included), create one (the full key shown once), revoke one. */
export async function keyPages(app: FastifyInstance) {
  app.get<Params>('/stores/:storeId/keys', async (request, reply) =>
    keysPage(request, reply, { notice: request.query.done === 'revoked' ? 'The key is revoked: requests with it now get 401.' : null }),
  );

  app.post<Params>('/stores/:storeId/keys', async (request, reply) => {
    const input = newKeyInput(formOf(request));
    if (!input.ok) return keysPage(request, reply, { status: 400, error: input.message });
    const { key, plain } = await createKey(app.orm.em, request.ownedStore!.id, {
      kind: input.kind,
      scopes: input.scopes,
      origins: input.origins,
      ...(input.label ? { label: input.label } : {}),
    });
    return keysPage(request, reply, { created: { kind: input.kind, plain, scopes: key.scopes } });
  });

  const revoke = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
    const store = request.ownedStore!;
    const notFound = () =>
      sendMessage(reply, 404, 'Not found', 'This store has no such key.', { href: storePath(store.id, '/keys'), text: 'Back to the keys' });
    if (!isConfirmed(request)) {
      const { keys } = (await findStoreWithKeys(app.orm.em, store.id))!;
      const key = keys.find((k) => k.id === request.params.keyId && !k.revokedAt);
      if (!key) return notFound();
      return sendConfirmation(request, reply, {
        tab: 'keys',
        title: 'Revoke this key?',
        item: `${key.connectionId ? 'connection' : key.kind} key ${key.prefix}…${key.label ? ` (${key.label})` : ''}`,
        consequence:
          'Every request made with this key gets 401 from then on, and it cannot be brought back: a new key has to be created and put where this one was.',
        action: storePath(store.id, `/keys/${key.id}/revoke`),
        button: 'Revoke the key',
        back: '/keys',
      });
    }
    if (!(await revokeStoreKey(app.orm.em, store.id, request.params.keyId))) return notFound();
    return reply.redirect(storePath(store.id, '/keys?done=revoked'), 303);
  };
  app.get<Params>('/stores/:storeId/keys/:keyId/revoke', revoke);
  app.post<Params>('/stores/:storeId/keys/:keyId/revoke', revoke);
}
