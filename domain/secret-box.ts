import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

// AES-256-GCM: confidentiality and integrity; the version prefix leaves room for key rotation.
const VERSION = 'v1';

// A key given as bytes is made into a key object on every cipher: the worker opens an endpoint's secret per
// delivery, so each key's object is made once and kept as long as its buffer (the config's) lives.
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(key: Buffer): KeyObject {
  let made = keyObjects.get(key);
  if (!made) keyObjects.set(key, (made = createSecretKey(key)));
  return made;
}

/** Encrypts a secret for storage: `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function sealSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * Decrypts what sealSecret made with the key, or with any of the keys in order (the current one, then
 * the previous one while a rotation runs); throws when none opens it or the text was altered.
 */
export function openSecret(keys: Buffer | readonly Buffer[], sealed: string): string {
  return openSecretWith(keys, sealed).plain;
}

/** openSecret, also saying which of the keys opened it (0: the first). */
export function openSecretWith(keys: Buffer | readonly Buffer[], sealed: string): { plain: string; keyIndex: number } {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
  const list = Buffer.isBuffer(keys) ? [keys] : keys;
  for (const [keyIndex, key] of list.entries()) {
    const decipher = createDecipheriv('aes-256-gcm', keyObject(key), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return { plain: Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8'), keyIndex };
    } catch {
      // The authentication tag does not match under this key: try the next one.
    }
  }
  throw new Error('Unsupported state or unable to authenticate data: no SECRETS_KEY opens this secret');
}
