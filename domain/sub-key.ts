import { hkdfSync } from 'node:crypto';

/** Purposes the secrets key is stretched for; one sub-key each, so no key ever serves two uses. */
export type SubKeyPurpose = 'dashboard-session-cookie' | 'dashboard-csrf';

/** A 32-byte key for one purpose, derived from the secrets key with HKDF-SHA256 (same input, same key). */
export function deriveSubKey(secretsKey: Buffer, purpose: SubKeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), `store-commerce/${purpose}`, 32));
}
