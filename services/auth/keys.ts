import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, runPrepared } from '../../db/prepared.js';
import type { Principal } from '../../contract/principal.js';
import { isScope } from '../../domain/scopes.js';
import { clientKey } from '../../domain/client-address.js';
import { effectivePlan } from '../../domain/plan.js';
import { sellsCatalogue } from '../../domain/store-mode.js';
import { executeBound } from '../../db/bound.js';
import type { RateLimitCounterRow } from '../../db/tables/rate-limit-counters.js';
import type { ApiKeyRow } from '../../db/entities/api-key.js';
import type { StoreRow } from '../../db/entities/store.js';
import type { ConnectionRow } from '../../db/tables/connections.js';

export interface KeyHit {
  principal: Principal;
  resetAt: number;
  keyCount: number;
  visitorCount: number | null;
}

// One statement: find the live key and its store's plan, and bump the key's counter (and, for a
// publishable key, the visitor's) for the current minute, and note when the key was last used (to the minute). Row locks of the upsert make it exact under concurrency.
// Prepared: PostgreSQL spent more CPU parsing and planning this statement than running it.
const KEY_AND_COUNT = prepared(`
with k as (
  select k.id, k.kind, k.scopes, k.origins, k.connection_id, k.store_id,
    s.plan, s.paid_until, s.slug, s.name, s.currency, s.mode, s.published, s.standard_delivery_fee, c.platform, c.shop_host
  from api_keys k join stores s on s.id = k.store_id left join connections c on c.id = k.connection_id
  where k.key_hash = $1 and k.revoked_at is null
), touched as (
  update api_keys set last_used_at = now()
  where id in (select id from k) and (last_used_at is null or last_used_at < now() - interval '1 minute')
), w as (select date_trunc('minute', now()) as ws),
b as (
  select 'key:' || k.id as bucket from k
  union all
  select 'visitor:' || k.id || ':' || $2::text from k where k.kind = 'publishable'
), hits as (
  insert into rate_limit_counters as c (bucket, window_start, count)
  select b.bucket, w.ws, 1 from b, w
  order by b.bucket
  on conflict (bucket, window_start) do update set count = c.count + 1
  returning c.bucket, c.count
)
select k.id, k.kind, k.scopes, k.origins, k.connection_id, k.store_id,
  k.plan, k.paid_until, k.slug, k.name, k.currency, k.mode, k.published, k.standard_delivery_fee, k.platform, k.shop_host,
  extract(epoch from w.ws)::bigint + 60 as reset_at,
  (select count from hits where bucket like 'key:%') as key_count,
  (select count from hits where bucket like 'visitor:%') as visitor_count
from k, w`);

// The key, its store, and its connection (a left join: null for a key without one), then the counts.
type KeyRow = Pick<ApiKeyRow, 'id' | 'kind' | 'scopes' | 'origins' | 'connection_id' | 'store_id'> &
  Pick<StoreRow, 'plan' | 'paid_until' | 'slug' | 'name' | 'currency' | 'mode' | 'published' | 'standard_delivery_fee'> & {
    platform: ConnectionRow['platform'] | null;
    shop_host: ConnectionRow['shop_host'];
    reset_at: string | number;
    key_count: number;
    visitor_count: number | null;
  };

/** Finds a live key by hash and counts this request against it (and its visitor, IPv6 per /64: clientKey); null when no such live key. */
export async function findKeyAndCount(em: EntityManager, keyHash: string, visitorIp: string): Promise<KeyHit | null> {
  const rows = await runPrepared<KeyRow>(em, KEY_AND_COUNT, [keyHash, clientKey(visitorIp)]);
  const row = rows[0];
  if (!row) return null;
  return {
    principal: {
      keyId: row.id,
      kind: row.kind,
      connectionId: row.connection_id,
      storeId: row.store_id,
      plan: effectivePlan({ plan: row.plan, paidUntil: row.paid_until }),
      // api_keys.scopes is any text[]: a scope this code does not know grants nothing.
      scopes: row.scopes.filter(isScope),
      origins: row.origins,
      storeSlug: row.slug,
      storeName: row.name,
      storeCurrency: row.currency,
      storeMode: row.mode,
      storePublished: sellsCatalogue(row),
      storeDeliveryFee: row.standard_delivery_fee,
      platform: row.platform,
      shopHost: row.shop_host,
    },
    resetAt: Number(row.reset_at),
    keyCount: row.key_count,
    visitorCount: row.visitor_count,
  };
}

const ANONYMOUS_COUNT = prepared(`
insert into rate_limit_counters as c (bucket, window_start, count)
values ($1, date_trunc('minute', now()), 1)
on conflict (bucket, window_start) do update set count = c.count + 1
returning c.count, extract(epoch from c.window_start)::bigint + 60 as reset_at`);

/** Counts a keyless (or failed-key) request against the client IP (IPv6 per /64: clientKey). */
export async function countAnonymous(em: EntityManager, ip: string): Promise<{ count: number; resetAt: number }> {
  const rows = await runPrepared<Pick<RateLimitCounterRow, 'count'> & { reset_at: string }>(em, ANONYMOUS_COUNT, [`ip:${clientKey(ip)}`]);
  return { count: rows[0]!.count, resetAt: Number(rows[0]!.reset_at) };
}

/** True when some live publishable key lists this origin (answers CORS preflights, which carry no key). */
export async function isKnownOrigin(em: EntityManager, origin: string): Promise<boolean> {
  const rows = await executeBound<unknown>(
    em,
    `select 1 from api_keys where kind = 'publishable' and revoked_at is null and origins @> array[?::text] limit 1`,
    [origin],
  );
  return rows.length > 0;
}
