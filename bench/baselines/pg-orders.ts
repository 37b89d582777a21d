// Baseline: minimal Fastify + pg doing the same logical SQL as the service's POST /orders and GET /orders,
// with no ORM, no auth, no rate limit and no validation schema. Never imports the service's code.
// Writes go to bl_* copies of the service's tables (same columns, defaults, checks and indexes, via
// LIKE … INCLUDING ALL, plus the same foreign keys), so the worker never sees them; reads use the
// service's own orders table, so both sides page through the very same rows.
import { createHash, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const writeStoreId = process.env.WRITE_STORE_ID;
const readStoreId = process.env.READ_STORE_ID;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

await pool.query(`
  create table if not exists bl_orders (like orders including all, foreign key (store_id) references stores (id) on delete cascade);
  create table if not exists bl_order_status_history (like order_status_history including all, foreign key (order_id) references bl_orders (id) on delete cascade);
  create table if not exists bl_order_events (like order_events including all,
    foreign key (store_id) references stores (id) on delete cascade, foreign key (order_id) references bl_orders (id) on delete cascade);
  create table if not exists bl_outbox (like outbox including all);`);

const COLUMNS = [
  'id',
  'store_id',
  'origin',
  'source',
  'external_id',
  'external_number',
  'order_number',
  'external_status',
  'status',
  'payment_method',
  'payment_status',
  'payment_external_method',
  'payment_external_method_title',
  'payment_transaction_id',
  'is_cod',
  'total',
  'discount',
  'shipping',
  'currency',
  'customer_name',
  'customer_email',
  'customer_phone',
  'customer_address',
  'customer_city',
  'customer_postcode',
  'customer_country',
  'items',
  'note',
  'content_hash',
];
const UPDATED = COLUMNS.slice(5);
const UPSERT = `insert into bl_orders as o (${COLUMNS.join(', ')}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  on conflict (store_id, origin, external_id) where external_id is not null do update set
    ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = now(), version = o.version + 1
  where o.content_hash <> excluded.content_hash
  returning o.*, (o.xmax = 0) as inserted`;

type Body = Record<string, any>;
const text = (v: unknown) => (v === undefined || v === null ? null : String(v));

/** The same row the service would write, straight from the body. */
function rowValues(b: Body, hash: string): unknown[] {
  const c = b.customer ?? {};
  const p = b.payment ?? {};
  return [
    randomUUID(),
    writeStoreId,
    'api',
    'api',
    String(b.external_id),
    text(b.number),
    text(b.number),
    text(b.status),
    b.status ?? 'pending',
    p.is_cod ? 'cod' : 'manual',
    p.status ?? 'pending',
    text(p.method),
    text(p.method_title),
    text(p.transaction_id),
    p.is_cod === true,
    b.totals?.total ?? 0,
    b.totals?.discount ?? 0,
    b.totals?.shipping ?? 0,
    b.currency ?? 'USD',
    text(c.name),
    text(c.email),
    text(c.phone),
    text(c.address_line1),
    text(c.city),
    text(c.postcode),
    text(c.country),
    JSON.stringify(b.items ?? []),
    text(b.note),
    hash,
  ];
}

const app = Fastify({ logger: false, bodyLimit: 1_048_576 });
app.get('/healthz', async () => ({ ok: true }));

app.post('/api/v1/orders', async (request, reply) => {
  const body = request.body as Body;
  const hash = createHash('sha256').update(JSON.stringify(body)).digest('base64url');
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query(UPSERT, rowValues(body, hash));
    const row = rows[0];
    if (row) {
      if (row.inserted) {
        await client.query(
          `insert into bl_order_status_history (order_id, status, actor, created_at) values ($1, $2, 'bench', clock_timestamp())`,
          [row.id, row.status],
        );
      }
      const eventId = randomUUID();
      const type = row.inserted ? 'order.created' : 'order.updated';
      await client.query(
        `insert into bl_order_events (id, store_id, order_id, type, actor, payload, created_at) values ($1, $2, $3, $4, 'bench', $5, clock_timestamp())`,
        [eventId, writeStoreId, row.id, type, JSON.stringify(row)],
      );
      await client.query(
        `insert into bl_outbox (action, workflow_type, workflow_id, args, search_attributes, summary) values ('start', 'orderEventWorkflow', $1, $2, $3, $4)`,
        [
          `order-event/${eventId}`,
          JSON.stringify([{ eventId, orderId: row.id, type }]),
          JSON.stringify({ OrderId: row.id }),
          `${type} for ${row.external_id}`,
        ],
      );
      await client.query(`select pg_notify('bl_outbox', '')`);
    }
    await client.query('commit');
    return reply
      .status(row?.inserted ? 201 : 200)
      .send({ order: row ?? null, action: row ? (row.inserted ? 'created' : 'updated') : 'unchanged' });
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
});

app.get('/api/v1/orders', async (request) => {
  const limit = Math.min(100, Math.max(1, Number((request.query as { limit?: string }).limit ?? 25)));
  const { rows } = await pool.query(
    `select * from orders where store_id = $1 and not archived order by created_at desc, id desc limit $2`,
    [readStoreId, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  const cursor = hasMore && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data: page, has_more: hasMore, next_cursor: cursor };
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
