import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { hashPassword, passwordProblem } from '../../domain/password.js';
import { writeTransaction } from '../../db/transaction.js';
import { passwordHashing } from './hashing.js';
import { checkCredentials, type Owner } from './owners.js';
import type { OwnerPasswordResetRow } from '../../db/tables/owner-password-resets.js';

/** How long a reset link works (single use within it). */
export const RESET_TTL_SECONDS = 3600;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export type PasswordChange = { ok: true } | { ok: false; field: 'current_password' | 'new_password'; message: string };

/**
 * Changes an owner's password when the current one is right (checked as a sign-in is) and the new one
 * is acceptable; every other session of the owner ends, the one in `keepSessionId` stays.
 */
export async function changePassword(
  em: EntityManager,
  owner: Owner,
  current: string,
  next: string,
  keepSessionId: string,
): Promise<PasswordChange> {
  const weak = passwordProblem(next);
  if (weak) return { ok: false, field: 'new_password', message: weak };
  if (!(await checkCredentials(em, owner.email, current)))
    return { ok: false, field: 'current_password', message: 'The current password is wrong.' };
  const hash = await passwordHashing.run(() => hashPassword(next));
  await writeTransaction(em, async (tx) => {
    await executeBound(tx, `update owners set password_hash = ? where id = ?`, [hash, owner.id]);
    await executeBound(tx, `delete from owner_sessions where owner_id = ? and id <> ?`, [owner.id, keepSessionId]);
    // A reset link issued before the change is of no use any more.
    await executeBound(tx, `delete from owner_password_resets where owner_id = ?`, [owner.id]);
  });
  return { ok: true };
}

/** How long the link of `owner add` for an existing account works: the operator hands it over, maybe a day later. */
export const INVITE_TTL_SECONDS = 72 * 3600;

/**
 * A one-time reset link's token for this owner (only its SHA-256 is stored); valid RESET_TTL_SECONDS, single
 * use. With `storeId` it is an invitation: setting the password through it also makes the owner one of that store's.
 */
export async function issuePasswordReset(
  em: EntityManager,
  ownerId: string,
  invite?: { storeId: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const [row] = await executeBound<Pick<OwnerPasswordResetRow, 'expires_at'>>(
    em,
    `insert into owner_password_resets (id, owner_id, store_id, expires_at) values (?, ?, ?, now() + make_interval(secs => ?)) returning expires_at`,
    [digest(token), ownerId, invite?.storeId ?? null, invite ? INVITE_TTL_SECONDS : RESET_TTL_SECONDS],
  );
  return { token, expiresAt: new Date(row!.expires_at) };
}

/** The owner a reset token belongs to while it is unused and unexpired; null otherwise (unknown, used, expired, malformed). */
export async function findPasswordReset(em: EntityManager, token: string): Promise<Owner | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [row] = await executeBound<Owner>(
    em,
    `select o.id, o.email from owner_password_resets r join owners o on o.id = r.owner_id
     where r.id = ? and r.used_at is null and r.expires_at > now()`,
    [digest(token)],
  );
  return row ?? null;
}

export type ResetResult = { ok: true; owner: Owner } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'weak'; message: string };

/**
 * Sets a new password through a reset token: the token is spent in the same transaction that writes the
 * hash (two uses at once: one wins), every session of the owner ends and other reset links die.
 */
export async function completePasswordReset(em: EntityManager, token: string, next: string): Promise<ResetResult> {
  const weak = passwordProblem(next);
  if (weak) return { ok: false, reason: 'weak', message: weak };
  if (!(await findPasswordReset(em, token))) return { ok: false, reason: 'invalid' };
  const hash = await passwordHashing.run(() => hashPassword(next));
  return writeTransaction(em, async (tx): Promise<ResetResult> => {
    const [spent] = await executeBound<Owner & { store_id: string | null }>(
      tx,
      `with r as (update owner_password_resets set used_at = now() where id = ? and used_at is null and expires_at > now() returning owner_id, store_id)
       update owners o set password_hash = ? from r where o.id = r.owner_id returning o.id, o.email, r.store_id`,
      [digest(token), hash],
    );
    if (!spent) return { ok: false, reason: 'invalid' };
    // An invitation's store (owner add): given now, to whoever held the operator's link.
    if (spent.store_id)
      await executeBound(tx, `insert into owner_stores (owner_id, store_id, role) values (?, ?, 'owner') on conflict do nothing`, [
        spent.id,
        spent.store_id,
      ]);
    await executeBound(tx, `delete from owner_sessions where owner_id = ?`, [spent.id]);
    await executeBound(tx, `delete from owner_password_resets where owner_id = ? and used_at is null`, [spent.id]);
    return { ok: true, owner: { id: spent.id, email: spent.email } };
  });
}
