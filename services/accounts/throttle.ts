import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { clientKey } from '../../domain/client-address.js';
import type { SignInThrottleRow } from '../../db/tables/sign-in-throttle.js';

/**
 * Sign-in attempts allowed per 15-minute window: per client (an IPv4 address or an IPv6 /64) across all
 * emails, and per email from one client. Nothing is counted per email alone: anyone could then lock an
 * owner out by failing on purpose. Sign-ups count per client.
 */
export const THROTTLE = { windowSeconds: 15 * 60, perEmailAndClient: 5, perIp: 20, signUpsPerIp: 30 } as const;

export type ThrottleBucket = { bucket: string; limit: number };

/** The buckets a sign-in attempt counts against: its client, and its email from that client. */
export const signInBuckets = (email: string, ip: string): ThrottleBucket[] => [
  { bucket: `ip:${clientKey(ip)}`, limit: THROTTLE.perIp },
  { bucket: `email:${email} ip:${clientKey(ip)}`, limit: THROTTLE.perEmailAndClient },
];

// One statement counts the attempt in every bucket and returns the new counts: row locks of the upsert
// give concurrent attempts distinct counts, so a burst is cut exactly at the limit. Buckets are upserted
// in one order so two attempts never wait on each other's rows crosswise.
const RESERVE = `
insert into sign_in_throttle as t (bucket, failures, window_started_at)
select b.bucket, 1, now() from unnest(?::text[]) as b(bucket) order by b.bucket
on conflict (bucket) do update set
  failures = case when t.window_started_at > now() - make_interval(secs => ?) then t.failures + 1 else 1 end,
  window_started_at = case when t.window_started_at > now() - make_interval(secs => ?) then t.window_started_at else now() end
returning bucket, failures, ceil(extract(epoch from window_started_at + make_interval(secs => ?) - now()))::int as left`;

/**
 * Counts one attempt (a sign-in, a sign-up) in each bucket before it is made, atomically; returns the
 * seconds to wait when any bucket went past its limit (the attempt must then not be made), else null.
 * A successful sign-in gives its attempt back (forgiveSignIn), so only failures and refusals stay counted.
 */
export async function reserveAttempt(em: EntityManager, buckets: ThrottleBucket[]): Promise<number | null> {
  const w = THROTTLE.windowSeconds;
  await sweep(em);
  const rows = await executeBound<Pick<SignInThrottleRow, 'bucket' | 'failures'> & { left: number }>(em, RESERVE, [
    buckets.map((b) => b.bucket),
    w,
    w,
    w,
  ]);
  const over = rows.filter((r) => r.failures > buckets.find((b) => b.bucket === r.bucket)!.limit);
  return over.length ? Math.max(1, ...over.map((r) => r.left)) : null;
}

/** After a successful sign-in: the client's attempt is given back and its failures on this email are forgotten. */
export async function forgiveSignIn(em: EntityManager, buckets: ThrottleBucket[]): Promise<void> {
  const [client, pair] = buckets as [ThrottleBucket, ThrottleBucket];
  await executeBound(em, `update sign_in_throttle set failures = greatest(failures - 1, 0) where bucket = ?`, [client.bucket]);
  await executeBound(em, `delete from sign_in_throttle where bucket = ?`, [pair.bucket]);
}

// Finished windows are worth nothing; a few are swept with each count so the table stays small.
const sweep = (em: EntityManager) =>
  executeBound(
    em,
    `delete from sign_in_throttle where bucket in (select bucket from sign_in_throttle where window_started_at < now() - make_interval(secs => ?) limit 100)`,
    [THROTTLE.windowSeconds],
  );

/** Gives back an attempt counted by reserveAttempt that turned out not to count (a sign-up refused for its form). */
export async function giveBackAttempt(em: EntityManager, buckets: ThrottleBucket[]): Promise<void> {
  await executeBound(em, `update sign_in_throttle set failures = greatest(failures - 1, 0) where bucket in (select unnest(?::text[]))`, [
    buckets.map((b) => b.bucket),
  ]);
}
