import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { numbered, prepared, runPrepared } from '../../db/prepared.js';
import { newSessionToken } from '../../domain/session-token.js';
import type { Owner } from './owners.js';
import type { OwnerSessionRow } from '../../db/tables/owner-sessions.js';
import type { OwnerRow } from '../../db/tables/owners.js';

/** A session ends after this long without a request... */
export const SESSION_IDLE_SECONDS = 12 * 3600;
/** ...and in any case this long after sign-in. */
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
// last_seen_at is written at most this often, so browsing does not write on every page.
const TOUCH_AFTER_SECONDS = 60;

export interface OwnerSession {
  id: string;
  owner: Owner;
}

/** Starts a session; returns the token for the cookie (only its hash is stored). Sweeps this owner's ended sessions. */
export async function createSession(em: EntityManager, ownerId: string): Promise<{ token: string; id: string }> {
  const { token, id } = newSessionToken();
  await executeBound(
    em,
    `delete from owner_sessions where owner_id = ? and (expires_at <= now() or last_seen_at <= now() - make_interval(secs => ?))`,
    [ownerId, SESSION_IDLE_SECONDS],
  );
  await executeBound(em, `insert into owner_sessions (id, owner_id, expires_at) values (?, ?, now() + make_interval(secs => ?))`, [
    id,
    ownerId,
    SESSION_ABSOLUTE_SECONDS,
  ]);
  return { token, id };
}

// Every dashboard request reads its session: prepared, planned once per pooled connection.
const FIND_SESSION = prepared(
  numbered(`select s.id, s.owner_id, o.email, s.last_seen_at < now() - make_interval(secs => ?) as stale
     from owner_sessions s join owners o on o.id = s.owner_id
     where s.id = ? and s.expires_at > now() and s.last_seen_at > now() - make_interval(secs => ?)`),
);

/** The live session with this id and its owner, or null when unknown, idle too long, or past its absolute end. */
export async function findSession(em: EntityManager, id: string): Promise<OwnerSession | null> {
  const [row] = await runPrepared<Pick<OwnerSessionRow, 'id' | 'owner_id'> & Pick<OwnerRow, 'email'> & { stale: boolean }>(
    em,
    FIND_SESSION,
    [TOUCH_AFTER_SECONDS, id, SESSION_IDLE_SECONDS],
  );
  if (!row) return null;
  if (row.stale) await executeBound(em, `update owner_sessions set last_seen_at = now() where id = ?`, [id]);
  return { id: row.id, owner: { id: row.owner_id, email: row.email } };
}

/** Ends a session (sign out); its cookie stops working at once. Also sweeps this owner's expired sessions. */
export async function endSession(em: EntityManager, id: string): Promise<void> {
  await executeBound(
    em,
    `delete from owner_sessions where id = ? or (owner_id = (select owner_id from owner_sessions where id = ?)
       and (expires_at <= now() or last_seen_at <= now() - make_interval(secs => ?)))`,
    [id, id, SESSION_IDLE_SECONDS],
  );
}
