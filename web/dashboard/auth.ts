import { clientKey } from '../../domain/client-address.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD_LENGTH } from '../../domain/password.js';
import { ApiError } from '../../contract/errors.js';
import { checkCredentials, normalizeEmail, signUp, type Owner } from '../../services/accounts/owners.js';
import { forgiveSignIn, giveBackAttempt, reserveAttempt, signInBuckets, THROTTLE } from '../../services/accounts/throttle.js';
import { html, type SafeHtml } from '../html.js';
import { formOf } from './guard.js';
import { flash, sendPage } from './render.js';
import { csrfField, startSession, stopSession } from './session.js';

/** A local path to return to after signing in (dashboard or connect page only); anything else gives the dashboard. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/dashboard';
  const url = new URL(next, 'http://local.invalid');
  if (url.origin !== 'http://local.invalid' || !/^\/(dashboard(\/|$)|connect\/)/.test(url.pathname)) return '/dashboard';
  return url.pathname + url.search;
}

/** The sign-in form; `next` survives the round trip (the connect page relies on it). */
export function signInForm(request: FastifyRequest, reply: FastifyReply, next: string, email = ''): SafeHtml {
  return html`<form method="post" action="/dashboard/sign-in" class="card">${csrfField(request, reply, 'pre')}<input type="hidden" name="next" value="${next}">
<label for="si-email">Email</label><input id="si-email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="si-password">Password</label><input id="si-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`;
}

/** The sign-up form, keeping `next` like the sign-in form. */
export function signUpForm(request: FastifyRequest, reply: FastifyReply, next: string, email = ''): SafeHtml {
  return html`<form method="post" action="/dashboard/sign-up" class="card">${csrfField(request, reply, 'pre')}<input type="hidden" name="next" value="${next}">
<label for="su-email">Email</label><input id="su-email" name="email" type="email" autocomplete="email" required value="${email}">
<label for="su-password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="su-password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<button type="submit">Create my account</button></form>`;
}

const other = (path: string, next: string) => `${path}${next === '/dashboard' ? '' : `?next=${encodeURIComponent(next)}`}`;

function signInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  next: string,
  opts: { status?: number; error?: string; email?: string } = {},
) {
  const body = html`<div class="dash dash-narrow"><h1>Sign in</h1>${flash('errors', opts.error)}${signInForm(request, reply, next, opts.email)}
<p>No account yet? <a href="${other('/dashboard/sign-up', next)}">Create one</a>.</p></div>`;
  return sendPage(reply, 'Sign in', body, { status: opts.status ?? 200 });
}

function signUpPage(
  request: FastifyRequest,
  reply: FastifyReply,
  next: string,
  opts: { status?: number; error?: string; email?: string } = {},
) {
  const body = html`<div class="dash dash-narrow"><h1>Create your account</h1>${flash('errors', opts.error)}${signUpForm(request, reply, next, opts.email)}
<p>Already have one? <a href="${other('/dashboard/sign-in', next)}">Sign in</a>.</p></div>`;
  return sendPage(reply, 'Create your account', body, { status: opts.status ?? 200 });
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/**
 * Sign in, sign up and sign out. Failed sign-ins are throttled per client and per email from one client,
 * sign-ups per client (every attempt counts but those refused before hashing; 429 with a clear message);
 * every hash waits for the process's hashing gate (503 with Retry-After when full; docs/dashboard.md).
 */
export async function authPages(app: FastifyInstance) {
  const em = () => app.orm.em;
  const pub = { config: { dashboardPublic: true } };

  app.get<{ Querystring: { next?: string } }>('/sign-in', pub, async (request, reply) =>
    request.ownerSession ? reply.redirect(safeNext(request.query.next), 303) : signInPage(request, reply, safeNext(request.query.next)),
  );
  app.get<{ Querystring: { next?: string } }>('/sign-up', pub, async (request, reply) =>
    request.ownerSession ? reply.redirect(safeNext(request.query.next), 303) : signUpPage(request, reply, safeNext(request.query.next)),
  );

  app.post('/sign-in', pub, async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(form.get('next'));
    const email = normalizeEmail(form.get('email') ?? '');
    const buckets = signInBuckets(email, request.ip);
    // Counted before the password is checked, in one statement: a burst cannot slip past the limits.
    const wait = await reserveAttempt(em(), buckets);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      return signInPage(request, reply, next, {
        status: 429,
        email,
        error: `Too many failed sign-ins from your network. Try again in ${minutes(wait)} minute(s).`,
      });
    }
    const owner = await checkCredentials(em(), email, form.get('password') ?? '').catch(async (err: unknown) => {
      // Refused before any hash (the hashing gate is full: 503 with Retry-After): the attempt is given back.
      if (err instanceof ApiError && err.code === 'unavailable') await giveBackAttempt(em(), buckets);
      throw err;
    });
    if (!owner) return signInPage(request, reply, next, { status: 401, email, error: 'The email or the password is wrong.' });
    await forgiveSignIn(em(), buckets);
    await startSession(request, reply, owner.id);
    return reply.redirect(next, 303);
  });

  app.post('/sign-up', pub, async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(form.get('next'));
    const email = form.get('email') ?? '';
    const bucket = [{ bucket: `signup-ip:${clientKey(request.ip)}`, limit: THROTTLE.signUpsPerIp }];
    // Counted before the account is made, in one statement: a burst is cut exactly at the limit.
    const wait = await reserveAttempt(em(), bucket);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      return signUpPage(request, reply, next, {
        status: 429,
        email,
        error: `Too many accounts were created from your network. Try again in ${minutes(wait)} minute(s).`,
      });
    }
    let owner: Owner;
    try {
      owner = await signUp(em(), email, form.get('password') ?? '');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Only what is refused before hashing is given back (a bad form, a full hashing gate). A taken address
      // costs no hash but stays counted like any other attempt, so telling emails apart is bounded by the limit.
      if (err.code !== 'conflict') await giveBackAttempt(em(), bucket);
      if (err.code === 'unavailable') throw err;
      // A bad email, a weak password, a taken address: the form again, with the reason.
      return signUpPage(request, reply, next, { status: 400, email, error: err.message });
    }
    await startSession(request, reply, owner.id);
    return reply.redirect(next, 303);
  });

  app.post('/sign-out', async (request, reply) => {
    await stopSession(request, reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });
}
