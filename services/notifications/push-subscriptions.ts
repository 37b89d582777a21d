import { writeTransaction } from '../../db/transaction.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { PushSubscriptionRow } from '../../db/tables/push-subscriptions.js';
import { ApiError } from '../../contract/errors.js';
import type { TargetPolicy } from '../../domain/address-check.js';
import { checkTarget, type Resolver } from '../outbound/target.js';

/** Devices one store may have subscribed at once (our choice; the oldest is not replaced, a new one is refused). */
export const MAX_PUSH_SUBSCRIPTIONS_PER_STORE = 20;

export interface PushSubscriptionInput {
  storeId: string;
  ownerId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

const base64urlBytes = (text: string) => (/^[A-Za-z0-9_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64url') : null);

/**
 * Saves a browser's push subscription for the store (the same endpoint again replaces its keys). The
 * endpoint must pass the outbound-address rules of webhooks; the keys must be a P-256 point and a
 * 16-byte secret, as PushSubscription.getKey() gives them.
 */
export async function savePushSubscription(
  em: EntityManager,
  input: PushSubscriptionInput,
  opts: { policy: TargetPolicy; resolve?: Resolver },
): Promise<{ id: string }> {
  const target = await checkTarget(input.endpoint, opts.policy, opts.resolve);
  if (!target.ok) throw new ApiError('invalid_request', `endpoint ${target.reason}.`, 'endpoint');
  const key = base64urlBytes(input.p256dh);
  if (!key || key.length !== 65 || key[0] !== 4)
    throw new ApiError('invalid_request', 'p256dh must be an uncompressed P-256 public key in base64url.', 'p256dh');
  if (base64urlBytes(input.auth)?.length !== 16) throw new ApiError('invalid_request', 'auth must be 16 bytes in base64url.', 'auth');
  return writeTransaction(em, async (tx) => {
    await executeBound(tx, `select id from stores where id = ? for update`, [input.storeId]);
    const [{ n }] = (await executeBound<{ n: number }>(
      tx,
      `select count(*)::int as n from push_subscriptions where store_id = ? and endpoint <> ?`,
      [input.storeId, input.endpoint],
    )) as [{ n: number }];
    if (n >= MAX_PUSH_SUBSCRIPTIONS_PER_STORE)
      throw new ApiError('conflict', `A store may have at most ${MAX_PUSH_SUBSCRIPTIONS_PER_STORE} devices with notifications on.`);
    const [row] = await executeBound<Pick<PushSubscriptionRow, 'id'>>(
      tx,
      `insert into push_subscriptions (id, store_id, owner_id, endpoint, p256dh, auth) values (?, ?, ?, ?, ?, ?)
       on conflict (store_id, endpoint) do update set owner_id = excluded.owner_id, p256dh = excluded.p256dh, auth = excluded.auth
       returning id`,
      [randomUUID(), input.storeId, input.ownerId, input.endpoint, input.p256dh, input.auth],
    );
    return { id: row!.id };
  });
}

/** Forgets a device of the store (the owner turned notifications off); true when there was one. */
export async function deletePushSubscription(em: EntityManager, storeId: string, endpoint: string): Promise<boolean> {
  const rows = await executeBound(em, `delete from push_subscriptions where store_id = ? and endpoint = ? returning 1`, [
    storeId,
    endpoint,
  ]);
  return rows.length > 0;
}

/** Forgets subscriptions the push service said are gone (404 or 410). */
export async function deletePushSubscriptionsById(em: EntityManager, ids: string[]): Promise<void> {
  if (ids.length) await executeBound(em, `delete from push_subscriptions where id = any(?::uuid[])`, [ids]);
}

/** The store's subscribed devices, oldest first. */
export async function listPushSubscriptions(
  em: EntityManager,
  storeId: string,
): Promise<Pick<PushSubscriptionRow, 'id' | 'endpoint' | 'p256dh' | 'auth'>[]> {
  return executeBound<Pick<PushSubscriptionRow, 'id' | 'endpoint' | 'p256dh' | 'auth'>>(
    em,
    `select id, endpoint, p256dh, auth from push_subscriptions where store_id = ? order by created_at, id`,
    [storeId],
  );
}

/** How many devices have notifications on for the store. */
export async function countPushSubscriptions(em: EntityManager, storeId: string): Promise<number> {
  const [row] = await executeBound<{ n: number }>(em, `select count(*)::int as n from push_subscriptions where store_id = ?`, [storeId]);
  return row!.n;
}
