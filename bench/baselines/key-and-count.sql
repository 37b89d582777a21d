-- A copy of services/auth/keys.ts KEY_AND_COUNT (the baselines never import the service): the live key and its store,
-- the key's (and a publishable key's visitor's) rate-limit counter for the minute, last_used_at.
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
from k, w
