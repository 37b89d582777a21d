import { hash, randomBytes } from 'node:crypto';

/** The key forms of the spec's Authentication table. */
export const KEY_FORMS = {
  secret: { prefix: 'svc_live_sk_', hexLength: 48 },
  publishable: { prefix: 'svc_live_pk_', hexLength: 48 },
  legacy: { prefix: 'svc_live_', hexLength: 40 },
} as const;
export type KeyForm = keyof typeof KEY_FORMS;

const KEY_PATTERN = /^svc_live_(?:(?:sk|pk)_[0-9a-f]{48}|[0-9a-f]{40})$/;
/** Anything shaped like one of our keys, wherever it appears in a string. */
export const KEY_LIKE = /svc_live_(?:sk_|pk_)?[0-9a-f]{40}/i;

/** A fresh random key of the given form (192 or 160 bits of entropy). */
export function generateKey(form: KeyForm): string {
  const { prefix, hexLength } = KEY_FORMS[form];
  return prefix + randomBytes(hexLength / 2).toString('hex');
}

/** True when the text has the exact shape of a key (cheap check before any lookup). */
export function isWellFormedKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/** The one-way hash we store; SHA-256 suffices for random keys and allows lookup by hash. */
export function hashKey(key: string): string {
  // One call, no Hash object: it runs on every keyed request.
  return hash('sha256', key, 'hex');
}

/** The part of a key that may be shown again after creation: its form's prefix and the first 4 hex characters. */
export function displayPrefix(key: string): string {
  const form = /^svc_live_(?:sk_|pk_)?/.exec(key)?.[0] ?? '';
  return `${key.slice(0, form.length + 4)}…`;
}
