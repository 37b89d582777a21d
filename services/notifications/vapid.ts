import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import webpush from 'web-push';
import { openSecret, sealSecret } from '../../domain/secret-box.js';
import type { VapidKeyRow } from '../../db/tables/vapid-keys.js';

export interface VapidKeys {
  /** The P-256 public key, uncompressed point in base64url: what browsers subscribe with (applicationServerKey). */
  publicKey: string;
  /** The private scalar in base64url; only the worker's push activity opens it. */
  privateKey: string;
}

/**
 * The service's VAPID key pair: generated once, on first need, and stored (the private key sealed with
 * SECRETS_KEY like webhook secrets). Concurrent first calls agree: the first insert wins, everyone reads it.
 */
export async function vapidKeys(em: EntityManager, keys: readonly Buffer[]): Promise<VapidKeys> {
  // keys: SECRETS_KEY (which seals a new pair), then SECRETS_KEY_PREVIOUS during a rotation (openingKeys).
  const row = await storedKeys(em, keys[0]!);
  return { publicKey: row.public_key, privateKey: openSecret(keys, row.private_key_sealed) };
}

/** The VAPID public key alone (what pages give browsers), made with its pair on first need; the private key stays sealed. */
export async function vapidPublicKey(em: EntityManager, secretsKey: Buffer): Promise<string> {
  return (await storedKeys(em, secretsKey)).public_key;
}

async function storedKeys(em: EntityManager, secretsKey: Buffer): Promise<{ public_key: string; private_key_sealed: string }> {
  const read = () =>
    executeBound<Pick<VapidKeyRow, 'public_key' | 'private_key_sealed'>>(
      em,
      `select public_key, private_key_sealed from vapid_keys where id = 1`,
      [],
    );
  const [found] = await read();
  if (found) return found;
  const made = webpush.generateVAPIDKeys();
  await executeBound(em, `insert into vapid_keys (id, public_key, private_key_sealed) values (1, ?, ?) on conflict (id) do nothing`, [
    made.publicKey,
    sealSecret(secretsKey, made.privateKey),
  ]);
  return (await read())[0]!;
}

/**
 * The VAPID subject (who runs the sender, for the push services' operators): PUBLIC_URL when it is https,
 * else a mailto: that names no real mailbox (push services accept only https: or mailto:).
 */
export function vapidSubject(publicUrl: string): string {
  return publicUrl.startsWith('https://') ? publicUrl : 'mailto:push-operator@store-commerce.invalid';
}
