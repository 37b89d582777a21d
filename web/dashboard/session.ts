import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfToken } from '../../domain/csrf.js';
import { sessionIdOf, signToken, verifySignedToken } from '../../domain/session-token.js';
import { deriveSubKey } from '../../domain/sub-key.js';
import { createSession, endSession, findSession, SESSION_ABSOLUTE_SECONDS, type OwnerSession } from '../../services/accounts/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { readCookies, setCookie } from './cookies.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in owner's session on dashboard and connect pages (null when signed out). */
    ownerSession?: OwnerSession | null;
    /** A pre-session value made during this request, before the browser has its cookie. */
    dashboardPre?: string;
  }
}

const subKeys = new WeakMap<Buffer, { cookie: Buffer; csrf: Buffer }>();
/** The dashboard's sub-keys of SECRETS_KEY: one signs session cookies, one makes form tokens. */
export function dashboardKeys(request: FastifyRequest) {
  const secretsKey = request.server.config.secretsKey;
  if (!secretsKey) throw new Error('SECRETS_KEY is required for the dashboard');
  let keys = subKeys.get(secretsKey);
  if (!keys)
    subKeys.set(
      secretsKey,
      (keys = { cookie: deriveSubKey(secretsKey, 'dashboard-session-cookie'), csrf: deriveSubKey(secretsKey, 'dashboard-csrf') }),
    );
  return keys;
}

const isHttps = (request: FastifyRequest) => request.server.config.publicUrl.startsWith('https:');
// On https the __Host- prefix makes browsers refuse the cookie unless it is Secure, host-only and Path=/.
const sessionCookieName = (request: FastifyRequest) => (isHttps(request) ? '__Host-sc_session' : 'sc_session');
// The pre-session cookie binds an anonymous visitor's form tokens: prefixed too, so no sibling host can plant one.
const preCookieName = (request: FastifyRequest) => (isHttps(request) ? '__Host-sc_pre' : 'sc_pre');

/** The signed-in owner's live session, or null (no cookie, a forged one, or an expired session). */
export async function loadSession(request: FastifyRequest): Promise<OwnerSession | null> {
  const value = readCookies(request).get(sessionCookieName(request));
  const token = value ? verifySignedToken(dashboardKeys(request).cookie, value) : null;
  return token ? findSession(request.server.orm.em, sessionIdOf(token)) : null;
}

/** True when the request carried a session cookie (to tell "expired" from "never signed in"). */
export const hadSessionCookie = (request: FastifyRequest) => readCookies(request).has(sessionCookieName(request));

/** Signs the owner in: a new session (never a reused one; a previous one of this browser ends) in a signed, HttpOnly, SameSite=Lax cookie. */
export async function startSession(request: FastifyRequest, reply: FastifyReply, ownerId: string): Promise<void> {
  // Signing in over an existing session (another account in the same browser) ends that one.
  if (request.ownerSession) await endSession(request.server.orm.em, request.ownerSession.id);
  const { token } = await createSession(request.server.orm.em, ownerId);
  setCookie(reply, sessionCookieName(request), signToken(dashboardKeys(request).cookie, token), {
    secure: isHttps(request),
    maxAgeSeconds: SESSION_ABSOLUTE_SECONDS,
  });
}

/** Signs out: the session row is deleted (the cookie is dead even if kept) and the cookie cleared. */
export async function stopSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.ownerSession) await endSession(request.server.orm.em, request.ownerSession.id);
  clearSessionCookie(request, reply);
}

/** Tells the browser to drop the session cookie. */
export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
  setCookie(reply, sessionCookieName(request), '', { secure: isHttps(request), maxAgeSeconds: 0 });

/** What a form token is bound to: the session when signed in, else the visitor's pre-session cookie. */
export function csrfBinding(request: FastifyRequest, kind: 'session' | 'pre'): string | null {
  if (kind === 'session') return request.ownerSession ? `session:${request.ownerSession.id}` : null;
  const pre = request.dashboardPre ?? readCookies(request).get(preCookieName(request));
  return pre && /^[A-Za-z0-9_-]{43}$/.test(pre) ? `pre:${pre}` : null;
}

/** The hidden form field with this visitor's token; sets the pre-session cookie first when an anonymous visitor has none. */
export function csrfField(request: FastifyRequest, reply: FastifyReply, kind: 'session' | 'pre'): SafeHtml {
  let binding = csrfBinding(request, kind);
  if (!binding && kind === 'pre') {
    request.dashboardPre = randomBytes(32).toString('base64url');
    setCookie(reply, preCookieName(request), request.dashboardPre, { secure: isHttps(request) });
    binding = `pre:${request.dashboardPre}`;
  }
  if (!binding) throw new Error('a session form was rendered without a session');
  return html`<input type="hidden" name="_csrf" value="${csrfToken(dashboardKeys(request).csrf, binding)}">`;
}
