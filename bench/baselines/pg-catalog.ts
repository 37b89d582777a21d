// Baseline: minimal Fastify + pg doing the same SQL as the service's GET /products, POST /checkout/sessions and
// GET /tracking, with no ORM, no auth, no rate limit and no validation schema. Never imports the service's code.
// Reads use the service's own tables (the same rows as ours); the checkout write goes to bl_* copies of
// checkout_sessions and outbox (LIKE … INCLUDING ALL), so the worker never sees the baseline's hand-offs.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const storeId = process.env.STORE_ID;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

await pool.query(`
  create table if not exists bl_checkout_sessions (like checkout_sessions including all, foreign key (store_id) references stores (id) on delete cascade);
  create table if not exists bl_outbox (like outbox including all);`);

const app = Fastify({ logger: false, bodyLimit: 1_048_576 });
app.get('/healthz', async () => ({ ok: true }));

app.get('/api/v1/products', async (request) => {
  const limit = Math.min(100, Math.max(1, Number((request.query as { limit?: string }).limit ?? 25)));
  const { rows } = await pool.query(
    `select * from products where store_id = $1 and not archived order by created_at desc, id desc limit $2`,
    [storeId, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  const cursor = hasMore && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data: page, has_more: hasMore, next_cursor: cursor };
});

type Line = { product_id: string; quantity: number };
app.post('/api/v1/checkout/sessions', async (request, reply) => {
  const lines = (request.body as { items: Line[] }).items;
  // Pricing reads the lines' products (the service checks them the same way), then one transaction writes the session and its hand-off.
  const { rows: products } = await pool.query(
    `select id, price, stock, variants from products where store_id = $1 and id = any($2::uuid[]) and not archived`,
    [storeId, lines.map((l) => l.product_id)],
  );
  if (products.length !== new Set(lines.map((l) => l.product_id)).size) return reply.status(422).send({ error: 'unknown product' });
  const token = randomBytes(32).toString('base64url');
  const hash = createHash('sha256').update(token).digest('base64url');
  const id = randomUUID();
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query(
      `insert into bl_checkout_sessions (id, store_id, token_hash, lines, return_url, key_id, expires_at)
       values ($1, $2, $3, $4::jsonb, null, null, date_trunc('milliseconds', now()) + make_interval(secs => 86400)) returning expires_at`,
      [id, storeId, hash, JSON.stringify(lines)],
    );
    // An outbox row per session, as when the service started a workflow per session; the service now writes one per store and
    // expiry bucket, but the yardstick keeps its work.
    await client.query(
      `insert into bl_outbox (action, workflow_type, workflow_id, args, search_attributes, summary) values ('start', 'checkoutExpiryWorkflow', $1, $2, $3, $4)`,
      [
        `checkout-expiry/${id}`,
        JSON.stringify([{ sessionId: id, storeId, ttlMs: 86_400_000 }]),
        JSON.stringify({ StoreId: storeId }),
        `checkout session ${id}`,
      ],
    );
    await client.query(`select pg_notify('bl_outbox', '')`);
    await client.query('commit');
    return reply
      .status(201)
      .send({ url: `http://127.0.0.1/cart/bench/${token}`, token, expires_at: new Date(rows[0].expires_at).toISOString() });
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
});

// The same lookup as the service's tracking (order by number + its status history + the store name + a lockout check), one round trip.
const TRACK = `select o.id, o.store_id, o.source, o.order_number, o.status, o.status_comment, o.items, o.total, o.shipping,
    o.cod_fee, o.is_cod, o.currency, o.tracking_number, o.tracking_courier, o.tracking_url, o.tracking_status_text,
    o.created_at, o.updated_at, s.name as store_name,
    coalesce((select json_agg(json_build_object('status', h.status, 'comment', h.comment, 'created_at', h.created_at) order by h.id)
      from (select id, status, comment, created_at from order_status_history where order_id = o.id order by id desc limit 100) h), '[]'::json) as history,
    (select ceil(extract(epoch from l.locked_until - now()))::int from tracking_lockouts l
      where l.store_id = $1::uuid and l.order_key = $2 and l.locked_until > now()) as retry_after
  from orders o join stores s on s.id = o.store_id
  where o.store_id = $1 and o.order_number in ($2, $3) and not o.archived
  order by o.created_at desc, o.id desc limit 20`;

app.get('/api/v1/tracking', async (request, reply) => {
  const key = String((request.query as { order?: string }).order ?? '')
    .replace(/^#/, '')
    .trim();
  const { rows } = await pool.query(TRACK, [storeId, key, `#${key}`]);
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
