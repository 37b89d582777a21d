import type { EntityManager } from '@mikro-orm/postgresql';
import { clientKey } from '../../domain/client-address.js';

/** Failed sign-ins allowed per window: per email address, and per client IP (which also caps sign-ups). */
export const THROTTLE = { windowSeconds: 15 * 60, perEmail: 5, perIp: 20, signUpsPerIp: 30 } as const;

export type ThrottleBucket = { bucket: string; limit: number };

/** The buckets a sign-in attempt counts against. */
export const signInBuckets = (email: string, ip: string): ThrottleBucket[] => [
  { bucket: `email:${email}`, limit: THROTTLE.perEmail },
  { bucket: `ip:${clientKey(ip)}`, limit: THROTTLE.perIp },
];

/** Seconds until the attempt may be made again when any bucket is full in its current window; null when allowed. */
export async function throttledFor(em: EntityManager, buckets: ThrottleBucket[]): Promise<number | null> {
  const rows = await em.execute<{ bucket: string; failures: number; left: number }[]>(
    `select bucket, failures, ceil(extract(epoch from window_started_at + make_interval(secs => ?) - now()))::int as left
     from sign_in_throttle where bucket in (${buckets.map(() => '?').join(', ')}) and window_started_at > now() - make_interval(secs => ?)`,
    [THROTTLE.windowSeconds, ...buckets.map((b) => b.bucket), THROTTLE.windowSeconds],
  );
  const full = rows.filter((r) => r.failures >= buckets.find((b) => b.bucket === r.bucket)!.limit);
  return full.length ? Math.max(1, ...full.map((r) => r.left)) : null;
}

/** Counts one failure (or one sign-up) in each bucket; a window older than 15 minutes starts over. Shared by every API process. */
export async function recordAttempt(em: EntityManager, buckets: ThrottleBucket[]): Promise<void> {
  // Finished windows are worth nothing; a few are swept with each new failure so the table stays small.
  await em.execute(
    `delete from sign_in_throttle where bucket in (select bucket from sign_in_throttle where window_started_at < now() - make_interval(secs => ?) limit 100)`,
    [THROTTLE.windowSeconds],
  );
  for (const { bucket } of buckets) {
    await em.execute(
      `insert into sign_in_throttle (bucket, failures, window_started_at) values (?, 1, now())
       on conflict (bucket) do update set
         failures = case when sign_in_throttle.window_started_at > now() - make_interval(secs => ?) then sign_in_throttle.failures + 1 else 1 end,
         window_started_at = case when sign_in_throttle.window_started_at > now() - make_interval(secs => ?) then sign_in_throttle.window_started_at else now() end`,
      [bucket, THROTTLE.windowSeconds, THROTTLE.windowSeconds],
    );
  }
}

/** Forgets an email's failures after a successful sign-in (the IP's stay counted). */
export async function clearEmailFailures(em: EntityManager, email: string): Promise<void> {
  await em.execute(`delete from sign_in_throttle where bucket = ?`, [`email:${email}`]);
}
