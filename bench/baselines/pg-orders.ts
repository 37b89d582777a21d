// Baseline: minimal Fastify + pg doing the same logical SQL as the service's POST /orders and GET /orders,
// with no ORM and no validation schema. Never imports the service's code. Every statement is a named
// prepared statement (as the service's hot ones are). A request that sends a key runs the service's
// authentication statement first (a copy: key-and-count.sql; the key, its store, the rate-limit counter
// for the minute) and is refused over the plan's limit, as ours; an order is written into the key's store.
// Writes go to bl_* copies of the service's tables (same columns, defaults, checks and indexes, via
// LIKE … INCLUDING ALL, plus the same foreign keys), so the worker never sees them; reads use the
// service's own orders table, so both sides page through the very same rows.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

const writeStoreId = process.env.WRITE_STORE_ID;
const readStoreId = process.env.READ_STORE_ID;
/** The per-minute limit of the bench store's plan for a secret key (the service reads it from its plan table). */
const requestsPerMinute = Number(process.env.REQUESTS_PER_MINUTE ?? 300);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

await pool.query(`
  create table if not exists bl_orders (like orders including all, foreign key (store_id) references stores (id) on delete cascade);
  create table if not exists bl_order_status_history (like order_status_history including all, foreign key (order_id) references bl_orders (id) on delete cascade);
  create table if not exists bl_order_events (like order_events including all,
    foreign key (store_id) references stores (id) on delete cascade, foreign key (order_id) references bl_orders (id) on delete cascade);`);

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
const UPSERT_TEXT = `insert into bl_orders as o (${COLUMNS.join(', ')}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  on conflict (store_id, origin, external_id) where external_id is not null do update set
    ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = now(), version = o.version + 1
  where o.content_hash <> excluded.content_hash
  returning o.*, (o.xmax = 0) as inserted`;

/** Named prepared statements: PostgreSQL parses and plans each once per connection. */
const statement = (name: string, text: string) => (values: unknown[]) => ({ name: `bl_${name}`, text, values });
const KEY_AND_COUNT = statement('key_and_count', readFileSync(new URL('./key-and-count.sql', import.meta.url), 'utf8'));
const UPSERT = statement('order_upsert', UPSERT_TEXT);
const HISTORY = statement(
  'order_history',
  `insert into bl_order_status_history (order_id, status, actor, created_at) values ($1, $2, 'bench', clock_timestamp())`,
);
const EVENT = statement(
  'order_event',
  `insert into bl_order_events (id, store_id, order_id, type, actor, payload, created_at) values ($1, $2, $3, $4, 'bench', $5, clock_timestamp())`,
);
/** A new order that is already paid has two events, order.created and order.paid, as ours records (domain/order-events.ts): one statement. */
const EVENT_PAIR = statement(
  'order_event_pair',
  `insert into bl_order_events (id, store_id, order_id, type, actor, payload, created_at)
   values ($1, $3, $4, $5, 'bench', $7, clock_timestamp()), ($2, $3, $4, $6, 'bench', $7, clock_timestamp())`,
);
const LIST = statement(
  'order_list',
  `select * from orders where store_id = $1 and not archived order by created_at desc, id desc limit $2`,
);

/**
 * The key's store, its request counted, as the service's auth does (SHA-256 of the key, one statement);
 * null after answering 401 or 429. Without a key (a scenario that loads it keyless): the write store.
 */
async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
  if (!request.headers.authorization) return writeStoreId ?? null;
  const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization)?.[1];
  const hash = key ? createHash('sha256').update(key).digest('hex') : '';
  const { rows } = await pool.query(KEY_AND_COUNT([hash, request.ip]));
  const row = rows[0];
  if (!row) {
    await reply.status(401).send({ error: 'unauthorized' });
    return null;
  }
  if (row.key_count > requestsPerMinute) {
    await reply.status(429).send({ error: 'rate_limited' });
    return null;
  }
  return row.store_id as string;
}

type Body = Record<string, any>;
const text = (v: unknown) => (v === undefined || v === null ? null : String(v));

/** The same row the service would write, straight from the body. */
function rowValues(b: Body, hash: string, storeId: string): unknown[] {
  const c = b.customer ?? {};
  const p = b.payment ?? {};
  return [
    randomUUID(),
    storeId,
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
  const storeId = await authenticate(request, reply);
  if (!storeId) return reply;
  const body = request.body as Body;
  const hash = createHash('sha256').update(JSON.stringify(body)).digest('base64url');
  const client = await pool.connect();
  try {
    // The rows ours writes for an order no webhook endpoint subscribes to (the bench store has none):
    // the order, a status history line for a new one, the events the change implies; no outbox row, no
    // NOTIFY. Ours records order.created and order.paid for a new paid order, order.updated for a change
    // (the bench's repeats change the note only, so no order.paid then).
    await client.query('begin');
    const { rows } = await client.query(UPSERT(rowValues(body, hash, storeId)));
    const row = rows[0];
    if (row) {
      if (row.inserted) await client.query(HISTORY([row.id, row.status]));
      const payload = JSON.stringify(row);
      if (row.inserted && row.payment_status === 'paid')
        await client.query(EVENT_PAIR([randomUUID(), randomUUID(), storeId, row.id, 'order.created', 'order.paid', payload]));
      else await client.query(EVENT([randomUUID(), storeId, row.id, row.inserted ? 'order.created' : 'order.updated', payload]));
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

app.get('/api/v1/orders', async (request, reply) => {
  // The key checked and counted as ours does (a twin store's key); the page is READ_STORE_ID's whatever the key's store.
  if (!(await authenticate(request, reply))) return reply;
  const limit = Math.min(100, Math.max(1, Number((request.query as { limit?: string }).limit ?? 25)));
  const { rows } = await pool.query(LIST([readStoreId, limit + 1]));
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
