import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkCsrfToken, isSameOriginPost } from '../../domain/csrf.js';
import { findOwnedStore, type OwnedStore } from '../../services/accounts/stores.js';
import { sendMessage } from './render.js';
import { clearSessionCookie, csrfBinding, dashboardKeys, hadSessionCookie, loadSession } from './session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The store named by :storeId, once the guard has checked the owner is a member. */
    ownedStore?: OwnedStore;
  }
  interface FastifyContextConfig {
    /** Dashboard and connect pages a signed-out visitor may open (sign in, sign up, the connect page). */
    dashboardPublic?: boolean;
    /** A form with a file input (multipart/form-data, up to UPLOAD_LIMIT); every other form is URL-encoded. */
    acceptsFile?: boolean;
  }
}

const FORM_LIMIT = 64 * 1024;
/** A form with a file (the products CSV import): the whole body, file included. */
export const UPLOAD_LIMIT = 2 * 1024 * 1024;

/** The submitted form (empty for a request without one). */
export const formOf = (request: FastifyRequest) => (request.body instanceof URLSearchParams ? request.body : new URLSearchParams());

const hasNul = (query: unknown) =>
  Object.entries((query ?? {}) as Record<string, unknown>).some(([k, v]) => `${k}${[v].flat().join('')}`.includes('\u0000'));

/** Where a signed-out visitor is sent, coming back to the same page afterwards. */
export function signInRedirect(reply: FastifyReply, next: string) {
  return reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(next)}`, 303);
}

/**
 * Installs, in the calling scope: the form body parser (URL-encoded, 64 KB), and one guard before every
 * handler. The guard loads the session; unless the route is public it requires one (else to sign-in)
 * and membership of the :storeId store (else 404, the same answer as for a store that does not exist);
 * every POST must carry the form token of its binding and must not come from another origin (else 403).
 */
export function installGuard(app: FastifyInstance) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );
  // A file input needs multipart/form-data. It is read into the same URLSearchParams as any form, a file's
  // field holding the file's text, so the guard's checks (form token, NUL) see every field alike.
  // Only the forms with a file take this larger body: elsewhere it is refused before it is read.
  app.addHook('preParsing', async (request) => {
    if (request.headers['content-type']?.toLowerCase().startsWith('multipart/form-data') && !request.routeOptions.config.acceptsFile)
      throw Object.assign(new Error('This form does not take a file.'), { statusCode: 415 });
  });
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT },
    async (request: FastifyRequest, body: Buffer) => {
      let parts: FormData;
      try {
        parts = await new Response(body, { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
      } catch {
        throw Object.assign(new Error('The form could not be read (a broken multipart body).'), { statusCode: 400 });
      }
      const form = new URLSearchParams();
      for (const [name, value] of parts.entries()) form.append(name, typeof value === 'string' ? value : await value.text());
      return form;
    },
  );
  app.addHook('preHandler', async (request, reply) => {
    // PostgreSQL text cannot hold NUL; refusing it here keeps every page's input storable.
    if (hasNul(request.query) || [...formOf(request).entries()].some(([k, v]) => (k + v).includes('\u0000'))) {
      return sendMessage(reply, 400, 'This request cannot be used', 'It contains a character (NUL) that no field accepts.');
    }
    const isPublic = request.routeOptions.config.dashboardPublic === true;
    request.ownerSession = await loadSession(request);
    if (!isPublic) {
      if (!request.ownerSession) {
        if (hadSessionCookie(request)) clearSessionCookie(request, reply);
        return signInRedirect(reply, request.method === 'GET' ? request.url : '/dashboard');
      }
      const storeId = (request.params as { storeId?: string }).storeId;
      if (storeId !== undefined) {
        const store = await findOwnedStore(request.server.orm.em, request.ownerSession.owner.id, storeId);
        if (!store) return sendMessage(reply, 404, 'Not found', 'There is no such store among yours.');
        request.ownedStore = store;
      }
    }
    if (request.method === 'POST') {
      const binding = csrfBinding(request, isPublic ? 'pre' : 'session');
      const ourOrigin = new URL(request.server.config.publicUrl).origin;
      const sameOrigin = isSameOriginPost(ourOrigin, request.headers.origin, request.headers.referer);
      if (!sameOrigin || !binding || !checkCsrfToken(dashboardKeys(request).csrf, binding, formOf(request).get('_csrf'))) {
        return sendMessage(
          reply,
          403,
          'This form has expired',
          'The form was not accepted: it is too old or did not come from this site. Go back, reload the page and try again.',
        );
      }
    }
  });
}
