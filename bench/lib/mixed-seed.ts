// The data of the mixed many-store load (issue 25, api-mixed): products and a million orders across the
// many-store day's stores, written in bulk. An order is not invented column by column: one order is
// written through the API (the template) and every seeded order copies its row and its status history,
// changing only what identifies it (id, store, external id, number, fingerprint, times). The API then
// reads seeded orders exactly as it reads its own writes, and checkSeededOrder proves it before a run.
import type pg from 'pg';
import { ORDERS } from '../../db/tables/orders.js';
import type { DayStore } from './many-stores.js';
import { checkpoint } from './database.js';
import { orderInput } from './order-bodies.js';

/** A seeded order the load may read or change: its store, id and the number a shopper tracks it by. */
export interface SeededOrder {
  storeIndex: number;
  id: string;
  number: string;
}

/** Columns of the template row that every seeded order changes (the rest are copied as the API wrote them). */
const VARYING: Record<string, string> = {
  id: 'gen_random_uuid()',
  store_id: '($1::uuid[])[1 + (g - 1) / $2::int]',
  external_id: `'seed-' || g`,
  external_number: '(100000 + g)::text',
  order_number: '(100000 + g)::text',
  content_hash: `md5('seed-' || g)`,
  // Newest first within a store: order k of a store was placed k × 5 minutes before the seed.
  created_at: 'b.now - make_interval(secs => ((g - 1) % $2::int) * 300)',
  updated_at: 'b.now - make_interval(secs => ((g - 1) % $2::int) * 300)',
};
const COLUMNS = Object.keys(ORDERS.columns);
const SELECTED = COLUMNS.map((c) => VARYING[c] ?? `t.${c}`);

/**
 * Orders g = from … to (1-based over all stores, `perStore` per store in store order), each a copy of the
 * template with its status history, in one statement.
 */
const SEED_ORDERS = `with b as (select date_trunc('milliseconds', now()) as now),
     seeded as (
       insert into orders (${COLUMNS.join(', ')})
       select ${SELECTED.join(', ')}
       from orders t, b, generate_series($4::int, $5::int) as g
       where t.id = $3::uuid
       returning id, created_at
     )
     insert into order_status_history (order_id, status, comment, actor, created_at)
     select s.id, h.status, h.comment, h.actor, s.created_at
     from seeded s, (select status, comment, actor from order_status_history where order_id = $3::uuid order by id) h`;

/** Runs the jobs two at a time (two PostgreSQL backends on two cores). */
async function inTwo(jobs: (() => Promise<unknown>)[]): Promise<void> {
  const lane = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job();
  };
  await Promise.all([lane(), lane()]);
}

/**
 * Writes the template order through the API (POST /orders, 3 items, prepaid, as a plugin sends it) into
 * `store` and answers its id. `store` should have no webhook endpoint: the template is not part of the load.
 */
export async function templateOrder(apiUrl: string, store: DayStore): Promise<string> {
  const r = await fetch(`${apiUrl}/api/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.keys[0]}`, 'content-type': 'application/json' },
    body: JSON.stringify(orderInput('mixed-template', 3, null)),
  });
  const body = (await r.json()) as { order?: { id?: string } };
  if (r.status !== 201 || !body.order?.id) throw new Error(`template order: HTTP ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.order.id;
}

/**
 * Seeds `perStore` orders into each store as copies of the template, in chunks of 50,000 two at a time
 * (two PostgreSQL backends on two cores), the orders' secondary indexes built after, then VACUUM (ANALYZE) and a CHECKPOINT. Answers a sample of the seeded orders (about
 * `sample` of them, spread over all stores) for the load to read and change.
 */
export async function seedOrderCopies(
  pool: pg.Pool,
  stores: DayStore[],
  template: string,
  perStore: number,
  sample: number,
): Promise<SeededOrder[]> {
  const total = stores.length * perStore;
  const chunk = 50_000;
  const chunks: [number, number][] = [];
  for (let from = 1; from <= total; from += chunk) chunks.push([from, Math.min(total, from + chunk - 1)]);
  const ids = stores.map((s) => s.id);
  // The secondary indexes are dropped during the bulk insert and built again after it from their own
  // definitions (the catalog's, so exactly the migrations' indexes): building an index once is several
  // times cheaper than inserting a million rows into nine of them. The primary key stays.
  const { rows: indexes } = await pool.query<{ name: string; def: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def from pg_index i
     where i.indrelid = 'orders'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
  );
  for (const ix of indexes) await pool.query(`drop index ${ix.name}`);
  await inTwo(
    chunks.map(
      ([from, to]) =>
        () =>
          pool.query(SEED_ORDERS, [ids, perStore, template, from, to]),
    ),
  );
  await inTwo(indexes.map((ix) => () => pool.query(`set maintenance_work_mem = '256MB'; ${ix.def}`)));
  // Vacuumed and written out, as an established deployment's old orders are: the load then measures the API,
  // not the first reads setting the seed's hint bits nor a checkpoint writing the seed back.
  await pool.query('vacuum (analyze) orders, order_status_history');
  await checkpoint(pool);
  const index = new Map(ids.map((id, i) => [id, i]));
  const share = Math.min(1, sample / total);
  const { rows } = await pool.query<{ id: string; store_id: string; order_number: string }>(
    `select id, store_id, order_number from orders tablesample bernoulli ($1) repeatable (25)
     where store_id = any($2::uuid[]) and external_id like 'seed-%'`,
    [share * 100, ids],
  );
  return rows.map((r) => ({ storeIndex: index.get(r.store_id)!, id: r.id, number: r.order_number }));
}

/**
 * `perStore` live products in each store in one statement, shaped like rows services/catalog/create.ts
 * writes (as bench/lib/catalog-fixtures.ts seeds one store's): one a minute back in time, then ANALYZE.
 */
export async function seedProductsOfStores(pool: pg.Pool, stores: DayStore[], perStore: number): Promise<void> {
  await pool.query(
    `insert into products (id, store_id, name, description, price, compare_at_price, image_url, images, category, categories,
       type, stock, variants, sku, created_at, updated_at)
     select gen_random_uuid(), s, 'Product ' || g, 'A fine product number ' || g || ', made to last.', (5 + g % 95) + 0.99,
       case when g % 4 = 0 then (10 + g % 95) + 0.99 end, 'https://cdn.example/p/' || g || '.jpg',
       array['https://cdn.example/p/' || g || '-1.jpg', 'https://cdn.example/p/' || g || '-2.jpg'],
       'Category ' || (g % 12), array['Category ' || (g % 12)], 'physical', null, '[]'::jsonb, 'SKU-' || g,
       b.now - make_interval(secs => g * 60), b.now - make_interval(secs => g * 60)
     from (select date_trunc('milliseconds', now()) as now) as b, unnest($1::uuid[]) as s, generate_series(1, $2::int) as g`,
    [stores.map((s) => s.id), perStore],
  );
  await pool.query('analyze products');
}

/** The JSON shape of a value: object keys (sorted) and leaf types, arrays by their elements' shapes. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  return value === null ? 'null' : typeof value;
}

/** Fields of an order that a seeded copy changes by design; everything else must read as the template reads. */
const OWN_FIELDS = new Set(['id', 'order_number', 'external_id', 'external_number', 'created_at', 'updated_at', 'tracking']);

/**
 * Reads the template and a seeded order through the API (GET /orders/{id}) and a seeded order's tracking
 * page (GET /tracking), and throws unless all answer 200, the seeded order has the template's JSON shape,
 * and every field but its own (ids, number, times, its URLs) equals the template's.
 */
export async function checkSeededOrder(apiUrl: string, key: string, templateKey: string, template: string, seeded: SeededOrder) {
  const get = async (path: string, k: string) => {
    const r = await fetch(`${apiUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${k}` } });
    const body = (await r.json()) as Record<string, unknown>;
    if (r.status !== 200) throw new Error(`seed check: GET ${path}: HTTP ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  const mine = (await get(`/orders/${template}`, templateKey)).order as Record<string, unknown>;
  const copy = (await get(`/orders/${seeded.id}`, key)).order as Record<string, unknown>;
  if (copy?.id !== seeded.id)
    throw new Error(`seed check: GET /orders/${seeded.id} answered another order: ${JSON.stringify(copy).slice(0, 300)}`);
  const a = JSON.stringify(shapeOf(mine));
  const b = JSON.stringify(shapeOf(copy));
  if (a !== b)
    throw new Error(`seed check: a seeded order reads with another shape than an order the API wrote:\n  API: ${a}\n  seeded: ${b}`);
  for (const [field, value] of Object.entries(mine))
    if (!OWN_FIELDS.has(field) && JSON.stringify(value) !== JSON.stringify(copy[field]))
      throw new Error(
        `seed check: field ${field} of a seeded order reads ${JSON.stringify(copy[field])}, the API's own ${JSON.stringify(value)}`,
      );
  if (copy.order_number !== seeded.number)
    throw new Error(`seed check: seeded order number ${String(copy.order_number)}, expected ${seeded.number}`);
  // tracking holds the order's own page URL; the rest of it must still read as the template's.
  const { page_url: _a, ...mineTracking } = mine.tracking as Record<string, unknown>;
  const { page_url: _b, ...copyTracking } = copy.tracking as Record<string, unknown>;
  if (JSON.stringify(mineTracking) !== JSON.stringify(copyTracking))
    throw new Error(
      `seed check: tracking of a seeded order reads ${JSON.stringify(copyTracking)}, the API's own ${JSON.stringify(mineTracking)}`,
    );
  const tracking = await get(`/tracking?order=${seeded.number}`, key);
  if (!tracking || typeof tracking !== 'object') throw new Error('seed check: GET /tracking answered no JSON object');
}
