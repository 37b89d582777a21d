// Baseline: minimal Fastify + pg doing the same SQL as the service's GET /products, POST /checkout/sessions and
// GET /tracking, with no ORM and no validation schema. Never imports the service's code. Every statement is a
// named prepared statement (as the service's hot ones are). A request that sends a key runs the service's
// authentication statement first (a copy: key-and-count.sql) and is refused over the plan's limit, as ours.
// Reads use the service's own tables (the same rows as ours); the checkout write goes to bl_* copies of
// checkout_sessions, checkout_expiry_buckets and outbox (LIKE … INCLUDING ALL), so the worker never sees
// the baseline's hand-offs.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

const storeId = process.env.STORE_ID;
/** The per-minute limit of the bench store's plan for a secret key (the service reads it from its plan table). */
const requestsPerMinute = Number(process.env.REQUESTS_PER_MINUTE ?? 300);
/** The service's session lifetime in the bench (CHECKOUT_TTL_SECONDS), and its expiry buckets' width (domain/checkout-expiry.ts). */
const ttlSeconds = Number(process.env.CHECKOUT_TTL_SECONDS ?? 5);
const bucketSeconds = Math.min(60, Math.max(1, Math.round(ttlSeconds / 60)));
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

await pool.query(`
  create table if not exists bl_checkout_sessions (like checkout_sessions including all, foreign key (store_id) references stores (id) on delete cascade);
  create table if not exists bl_checkout_expiry_buckets (like checkout_expiry_buckets including all);
  create table if not exists bl_outbox (like outbox including all);`);

/** Named prepared statements: PostgreSQL parses and plans each once per connection. */
const statement = (name: string, text: string) => (values: unknown[]) => ({ name: `bl_${name}`, text, values });
const KEY_AND_COUNT = statement('key_and_count', readFileSync(new URL('./key-and-count.sql', import.meta.url), 'utf8'));

/** The key checked and its request counted, as the service's auth does; false after answering 401 or 429. Keyless requests pass. */
async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (!request.headers.authorization) return true;
  const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization)?.[1];
  const hash = key ? createHash('sha256').update(key).digest('hex') : '';
  const { rows } = await pool.query(KEY_AND_COUNT([hash, request.ip]));
  if (!rows[0]) await reply.status(401).send({ error: 'unauthorized' });
  else if (rows[0].key_count > requestsPerMinute) await reply.status(429).send({ error: 'rate_limited' });
  else return true;
  return false;
}

const app = Fastify({ logger: false, bodyLimit: 1_048_576 });
app.get('/healthz', async () => ({ ok: true }));

const PRODUCT_LIST = statement(
  'product_list',
  `select * from products where store_id = $1 and not archived order by created_at desc, id desc limit $2`,
);
app.get('/api/v1/products', async (request, reply) => {
  if (!(await authenticate(request, reply))) return reply;
  const limit = Math.min(100, Math.max(1, Number((request.query as { limit?: string }).limit ?? 25)));
  const { rows } = await pool.query(PRODUCT_LIST([storeId, limit + 1]));
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  const cursor = hasMore && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data: page, has_more: hasMore, next_cursor: cursor };
});

type Line = { product_id: string; quantity: number };
const LINE_PRODUCTS = statement(
  'line_products',
  `select id, price, stock, variants from products where store_id = $1 and id = any($2::uuid[]) and not archived`,
);
// What ours writes (services/checkout/sessions.ts), in one statement: the session; its expiry bucket, which only
// the bucket's first session inserts; for that first session, the outbox row of the bucket's expiry workflow and a NOTIFY.
const CREATE_SESSION = statement(
  'create_session',
  `with session as (
     insert into bl_checkout_sessions (id, store_id, token_hash, lines, return_url, key_id, expires_at)
     values ($1, $2, $3, $4::jsonb, null, null, date_trunc('milliseconds', now()) + make_interval(secs => $5::float8))
     returning store_id, expires_at
   ), bucket as (
     insert into bl_checkout_expiry_buckets (store_id, ends_at)
     select store_id, to_timestamp(ceil(extract(epoch from expires_at) / $6::int) * $6::int) from session
     on conflict do nothing
     returning store_id, ends_at
   ), queued as (
     insert into bl_outbox (action, workflow_type, workflow_id, args, search_attributes, summary)
     select 'start', 'checkoutExpiryWorkflow', 'checkout-expiry/' || store_id || '/' || ends_at,
       jsonb_build_array(jsonb_build_object('storeId', store_id, 'endsAt', ends_at)), jsonb_build_object('StoreId', store_id),
       'checkout sessions of store ' || store_id || ' expiring by ' || ends_at
     from bucket
     returning 1
   )
   select expires_at, (select pg_notify('bl_outbox', '') from queued) as notified from session`,
);

app.post('/api/v1/checkout/sessions', async (request, reply) => {
  if (!(await authenticate(request, reply))) return reply;
  const lines = (request.body as { items: Line[] }).items;
  // Pricing reads the lines' products (the service checks them the same way), then one statement writes the session and its hand-off.
  const { rows: products } = await pool.query(LINE_PRODUCTS([storeId, lines.map((l) => l.product_id)]));
  if (products.length !== new Set(lines.map((l) => l.product_id)).size) return reply.status(422).send({ error: 'unknown product' });
  const token = randomBytes(32).toString('base64url');
  const hash = createHash('sha256').update(token).digest('base64url');
  const { rows } = await pool.query(CREATE_SESSION([randomUUID(), storeId, hash, JSON.stringify(lines), ttlSeconds, bucketSeconds]));
  return reply
    .status(201)
    .send({ url: `http://127.0.0.1/cart/bench/${token}`, token, expires_at: new Date(rows[0].expires_at).toISOString() });
});

// The same lookup as the service's tracking (order by number + its status history + the store name + a lockout check), one round trip.
const TRACK = statement(
  'tracking',
  `select o.id, o.store_id, o.source, o.order_number, o.status, o.status_comment, o.items, o.total, o.shipping,
    o.cod_fee, o.is_cod, o.currency, o.tracking_number, o.tracking_courier, o.tracking_url, o.tracking_status_text,
    o.created_at, o.updated_at, s.name as store_name,
    coalesce((select json_agg(json_build_object('status', h.status, 'comment', h.comment, 'created_at', h.created_at) order by h.id)
      from (select id, status, comment, created_at from order_status_history where order_id = o.id order by id desc limit 100) h), '[]'::json) as history,
    (select ceil(extract(epoch from l.locked_until - now()))::int from tracking_lockouts l
      where l.store_id = $1::uuid and l.order_key = $2 and l.locked_until > now()) as retry_after
  from orders o join stores s on s.id = o.store_id
  where o.store_id = $1 and o.order_number in ($2, $3) and not o.archived
  order by o.created_at desc, o.id desc limit 20`,
);

app.get('/api/v1/tracking', async (request, reply) => {
  if (!(await authenticate(request, reply))) return reply;
  const key = String((request.query as { order?: string }).order ?? '')
    .replace(/^#/, '')
    .trim();
  const { rows } = await pool.query(TRACK([storeId, key, `#${key}`]));
  const row = rows[0];
  if (!row) return reply.status(404).send({ error: 'not_found' });
  return {
    order_number: row.order_number,
    status: row.status,
    store_name: row.store_name,
    items: row.items,
    totals: { total: row.total, shipping: row.shipping, cod_fee: row.cod_fee, currency: row.currency },
    tracking: { number: row.tracking_number, courier: row.tracking_courier, url: row.tracking_url, text: row.tracking_status_text },
    history: row.history,
    created_at: row.created_at,
    updated_at: row.updated_at,
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
