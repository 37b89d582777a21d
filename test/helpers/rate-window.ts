// The API's rate-limit counters run per calendar minute of PostgreSQL's clock (date_trunc('minute', now())
// in services/auth/keys.ts). A test that counts requests against a limit must keep them inside one such
// minute, or a boundary between them resets the counter halfway and the test fails at random.
import type { MikroORM } from '@mikro-orm/postgresql';

/** Resolves once at least `needMs` of the current rate-limit minute are left, waiting for the next minute to begin if fewer are. */
export async function startInOneRateWindow(orm: MikroORM, needMs: number): Promise<void> {
  if (needMs > 55_000) throw new Error(`a rate-limit minute cannot hold ${needMs} ms of test`);
  // The database's clock, not this process's: it is the one the counters use.
  const [row] = await orm.em
    .fork()
    .execute<{ left: string }[]>(`select 60000 - (extract(epoch from clock_timestamp()) * 1000)::bigint % 60000 as left`);
  const left = Number(row!.left);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 250));
}

/** Longest wait startInOneRateWindow can impose: give hooks that call it at least this timeout. */
export const RATE_WINDOW_WAIT_MS = 61_000;
