import type { EntityManager } from '@mikro-orm/postgresql';
import webpush from 'web-push';
import { openSecret, sealSecret } from '../../domain/secret-box.js';

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
export async function vapidKeys(em: EntityManager, secretsKey: Buffer): Promise<VapidKeys> {
  const [found] = await em.execute<{ public_key: string; private_key_sealed: string }[]>(
    `select public_key, private_key_sealed from vapid_keys where id = 1`,
  );
  if (found) return { publicKey: found.public_key, privateKey: openSecret(secretsKey, found.private_key_sealed) };
  const made = webpush.generateVAPIDKeys();
  await em.execute(`insert into vapid_keys (id, public_key, private_key_sealed) values (1, ?, ?) on conflict (id) do nothing`, [
    made.publicKey,
    sealSecret(secretsKey, made.privateKey),
  ]);
  return vapidKeys(em, secretsKey);
}

/**
 * The VAPID subject (who runs the sender, for the push services' operators): PUBLIC_URL when it is https,
 * else a mailto: that names no real mailbox (push services accept only https: or mailto:).
 */
export function vapidSubject(publicUrl: string): string {
  return publicUrl.startsWith('https://') ? publicUrl : 'mailto:push-operator@store-commerce.invalid';
}
