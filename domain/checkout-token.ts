import { createHash, randomBytes } from 'node:crypto';

// 32 random bytes in base64url: 43 characters, 256 bits.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A fresh cart token (256 random bits, unguessable) and the hash that is all we store of it. */
export function newCheckoutToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashCheckoutToken(token) };
}

/** The stored form of a token: SHA-256, hex (a fast hash suffices for 256 random bits). */
export function hashCheckoutToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** True when the text has the shape of a token (checked before any lookup). */
export function isWellFormedToken(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}
