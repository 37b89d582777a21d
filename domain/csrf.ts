import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The form token for one binding: the session id when signed in, else the pre-session cookie of an
 * anonymous visitor (sign in, sign up). An HMAC, so it cannot be computed without the server's key.
 */
export const csrfToken = (key: Buffer, binding: string) => createHmac('sha256', key).update(`csrf:${binding}`).digest('base64url');

/** True only when the submitted token is the one for this binding (constant-time compare). */
export function checkCsrfToken(key: Buffer, binding: string, submitted: string | null | undefined): boolean {
  if (!submitted) return false;
  const expected = Buffer.from(csrfToken(key, binding));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * False when the browser says the form came from another site: an Origin other than ours, or else a
 * Referer outside our origin. Absent headers, and the "null" origin our no-referrer pages make browsers
 * send, leave the decision to the token.
 */
export function isSameOriginPost(ourOrigin: string, origin: string | undefined, referer: string | undefined): boolean {
  if (origin && origin !== 'null') return origin === ourOrigin;
  if (referer) {
    try {
      return new URL(referer).origin === ourOrigin;
    } catch {
      return false;
    }
  }
  return true;
}
