import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD_LENGTH } from '../../domain/password.js';
import { changePassword, completePasswordReset, findPasswordReset } from '../../services/accounts/passwords.js';
import { forgiveSignIn, reserveAttempt, signInBuckets } from '../../services/accounts/throttle.js';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { sendAccountPage } from './layout.js';
import { fieldError, flash, invalidAttrs, sendMessage, sendPage, type FieldErrors } from './render.js';
import { csrfField, startSession } from './session.js';

const NOTICES: Record<string, string> = {
  changed: 'Your password is changed. Your other signed-in browsers are signed out.',
  reset: 'Your new password is set, and you are signed in. Every other browser was signed out.',
};

function accountPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { status?: number; errors?: FieldErrors; notice?: string | null } = {},
) {
  const e = opts.errors;
  const form = html`<h2>Change your password</h2><form method="post" action="/dashboard/account/password" class="card">${csrfField(request, reply, 'session')}
<input type="hidden" name="username" autocomplete="username" value="${request.ownerSession!.owner.email}">
<label for="pw-current">Current password</label><input id="pw-current" name="current_password" type="password" autocomplete="current-password" required${invalidAttrs(e, 'current_password')}>${fieldError(e, 'current_password')}
<label for="pw-new">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="pw-new" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${invalidAttrs(e, 'new_password')}>${fieldError(e, 'new_password')}
<button type="submit">Change the password</button></form>
<p class="muted">Forgot it? Sign out and ask the operator of this service for a reset link.</p>`;
  return sendAccountPage(
    request,
    reply,
    'Your account',
    html`<p>Signed in as <strong>${request.ownerSession!.owner.email}</strong>.</p>${form}`,
    {
      status: opts.status ?? 200,
      error: e ? 'Not changed: see below.' : null,
      notice: opts.notice ?? null,
    },
  );
}

type ResetParams = { Params: { token: string } };

function resetPage(
  request: FastifyRequest<ResetParams>,
  reply: FastifyReply,
  email: string,
  opts: { status?: number; error?: string } = {},
) {
  const errors = opts.error ? { new_password: opts.error } : undefined;
  const body = html`<div class="dash dash-narrow"><h1>Choose a new password</h1>${flash('errors', opts.error ? 'Not changed: see below.' : null)}
<p>For <strong>${email}</strong>. This link works once.</p>
<form method="post" action="/dashboard/reset-password/${request.params.token}" class="card">${csrfField(request, reply, 'pre')}
<input type="hidden" name="username" autocomplete="username" value="${email}">
<label for="rp-new">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="rp-new" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${invalidAttrs(errors, 'new_password')}>${fieldError(errors, 'new_password')}
<button type="submit">Set the password</button></form></div>`;
  return sendPage(reply, 'Choose a new password', body, { status: opts.status ?? 200 });
}

const deadLink = (reply: FastifyReply) =>
  sendMessage(
    reply,
    410,
    'This link no longer works',
    'A password reset link works once, for one hour. Ask the operator of this service for a new one.',
    { href: '/dashboard/sign-in', text: 'Sign in' },
  );

/** The owner's account: password change (current + new; counted like a sign-in), and the one-time reset link's page. */
export async function accountPages(app: FastifyInstance) {
  const pub = { config: { dashboardPublic: true } };

  app.get<{ Querystring: { done?: string } }>('/account', async (request, reply) =>
    accountPage(request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  app.post('/account/password', async (request, reply) => {
    const form = formOf(request);
    const owner = request.ownerSession!.owner;
    // The current password is a guess like a sign-in's: the same throttle counts it.
    const buckets = signInBuckets(owner.email, request.ip);
    const wait = await reserveAttempt(app.orm.em, buckets);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      return accountPage(request, reply, {
        status: 429,
        errors: { current_password: `Too many wrong passwords. Try again in ${Math.max(1, Math.ceil(wait / 60))} minute(s).` },
      });
    }
    const result = await changePassword(
      app.orm.em,
      owner,
      form.get('current_password') ?? '',
      form.get('new_password') ?? '',
      request.ownerSession!.id,
    );
    if (!result.ok) return accountPage(request, reply, { status: 400, errors: { [result.field]: result.message } });
    await forgiveSignIn(app.orm.em, buckets);
    return reply.redirect('/dashboard/account?done=changed', 303);
  });

  app.get<ResetParams>('/reset-password/:token', pub, async (request, reply) => {
    const owner = await findPasswordReset(app.orm.em, request.params.token);
    return owner ? resetPage(request, reply, owner.email) : deadLink(reply);
  });

  app.post<ResetParams>('/reset-password/:token', pub, async (request, reply) => {
    const result = await completePasswordReset(app.orm.em, request.params.token, formOf(request).get('new_password') ?? '');
    if (!result.ok && result.reason === 'invalid') return deadLink(reply);
    if (!result.ok) {
      const owner = await findPasswordReset(app.orm.em, request.params.token);
      return owner ? resetPage(request, reply, owner.email, { status: 400, error: result.message }) : deadLink(reply);
    }
    await startSession(request, reply, result.owner.id);
    return reply.redirect('/dashboard/account?done=reset', 303);
  });
}
