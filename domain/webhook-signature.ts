import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (also a valid Standard Webhooks secret). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** X-Service-Signature of a webhook: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret text. */
export function serviceSignature(secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** X-Service-Signature of a pushed update: `sha256=` + hex HMAC-SHA256 of `timestamp + "." + raw body`. */
export function timestampedSignature(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

/** Standard Webhooks `webhook-signature` (v1): base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the decoded secret. */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, rawBody: string | Buffer): string {
  return `v1,${createHmac('sha256', decodedKey(secret)).update(`${id}.${timestamp}.`).update(rawBody).digest('base64')}`;
}

/**
 * The decoded secret as a KeyObject, made once per secret: given a Buffer, createHmac first asks whether
 * it is a KeyObject or a CryptoKey, and each answer costs Node a thrown and caught brand check (~25 µs
 * a signature together, as much as the HMAC itself). A few thousand endpoints' keys at most; cleared when full.
 */
function decodedKey(secret: string): KeyObject {
  let key = decodedKeys.get(secret);
  if (!key) {
    if (decodedKeys.size >= MAX_DECODED_KEYS) decodedKeys.clear();
    key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    decodedKeys.set(secret, key);
  }
  return key;
}
const decodedKeys = new Map<string, KeyObject>();
const MAX_DECODED_KEYS = 5000;
