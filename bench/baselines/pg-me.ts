// Baseline: minimal Fastify + pg doing the same SQL as the service's GET /me, with no ORM, no error catalogue,
// no rate-limit decision and no response schema. Never imports the service's code.
// Per request: SHA-256 of the bearer key, then the service's one authentication statement (find the live key
// and its store, bump the key's counter for the minute, note last_used_at), then the same JSON as ours.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/** Our PUBLIC_URL: the store's page links are built from it, as the service does. */
const publicUrl = process.env.PUBLIC_URL ?? 'http://127.0.0.1';
/** The per-minute limit of the bench store's plan for a secret key (the service reads it from its plan table). */
const requestsPerMinute = Number(process.env.REQUESTS_PER_MINUTE ?? 300);
// Same size as the service's pool (db/orm.ts).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// Copied from services/auth/keys.ts (KEY_AND_COUNT): the same text, $n placeholders included.
const KEY_AND_COUNT_SQL = `
with k as (
  select k.id, k.kind, k.scopes, k.origins, k.connection_id, k.store_id,
    s.plan, s.slug, s.name, s.currency, s.mode, s.published, s.standard_delivery_fee, c.platform
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
  k.plan, k.slug, k.name, k.currency, k.mode, k.published, k.standard_delivery_fee, k.platform,
  extract(epoch from w.ws)::bigint + 60 as reset_at,
  (select count from hits where bucket like 'key:%') as key_count,
  (select count from hits where bucket like 'visitor:%') as visitor_count
from k, w`;

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));

app.get('/api/v1/me', async (request, reply) => {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!key) return reply.status(401).send({ error: 'unauthorized' });
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query(KEY_AND_COUNT_SQL, [hash, request.ip]);
  const row = rows[0];
  if (!row) return reply.status(401).send({ error: 'unauthorized' });
  const storePage = `${publicUrl}/s/${encodeURIComponent(row.slug)}`;
  return {
    api_version: 'v1',
    store: {
      id: row.store_id,
      name: row.name,
      slug: row.slug,
      url: storePage,
      tracking_url: `${storePage}/track`,
      currency: row.currency,
      mode: row.mode,
    },
    key: { kind: row.kind === 'publishable' ? 'publishable' : 'secret', scopes: row.scopes, connection_id: row.connection_id },
    limits: { requests_per_minute: requestsPerMinute },
  };
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}
