import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh session token (256 random bits, base64url) and the id it is stored under (its SHA-256, hex). */
export function newSessionToken(): { token: string; id: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, id: sessionIdOf(token) };
}

/** The stored id of a token: a database leak reveals no cookie that works. */
export const sessionIdOf = (token: string) => createHash('sha256').update(token).digest('hex');

const mac = (key: Buffer, token: string) => createHmac('sha256', key).update(token).digest('base64url');

/** The cookie value: the token and its HMAC, so a forged or altered cookie is refused before any lookup. */
export const signToken = (key: Buffer, token: string) => `${token}.${mac(key, token)}`;

/** The token inside a cookie value when its signature holds (constant-time compare); null otherwise. */
export function verifySignedToken(key: Buffer, value: string): string | null {
  const dot = value.indexOf('.');
  if (dot <= 0 || value.length > 200) return null;
  const token = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(key, token));
  return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}
