import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { displayPrefix, generateKey, hashKey } from '../../domain/api-keys.js';
import { DEFAULT_SECRET_SCOPES } from '../../domain/scopes.js';

export interface BenchStore {
  id: string;
  /** Secret keys with the default scopes (orders:read, orders:write, …). */
  keys: string[];
}

/**
 * A published store on plan paid with `keyCount` secret keys, written straight into the database
 * (one statement for all keys). Many keys let a saturating run stay under the per-key minute limit.
 */
export async function createBenchStore(pool: pg.Pool, name: string, keyCount: number): Promise<BenchStore> {
  const id = randomUUID();
  await pool.query(
    `insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee)
     values ($1, $2, $3, 'USD', 'full', 'paid', true, 0)`,
    [id, name, `bench-${randomBytes(4).toString('hex')}`],
  );
  const keys = Array.from({ length: keyCount }, () => generateKey('secret'));
  await pool.query(
    `insert into api_keys (id, store_id, kind, key_hash, prefix, scopes, origins, label)
     select gen_random_uuid(), $1, 'secret', h, p, $4::text[], '{}', 'bench'
     from unnest($2::text[], $3::text[]) as t(h, p)`,
    [id, keys.map(hashKey), keys.map(displayPrefix), DEFAULT_SECRET_SCOPES],
  );
  return { id, keys };
}

/** The next key, round-robin: with K keys each sees 1/K of the traffic. */
export function keyRotation(keys: string[]): () => string {
  let i = 0;
  return () => keys[i++ % keys.length]!;
}

/**
 * Seeds `count` orders into a store in one INSERT … SELECT generate_series, shaped like rows the API
 * writes (3 items, customer, totals, statuses, one order every 30 s back in time), then ANALYZE.
 */
export async function seedOrders(pool: pg.Pool, storeId: string, count: number): Promise<void> {
  const item = (n: string) =>
    `jsonb_build_object('name', 'Product ' || ${n}, 'variant', 'Size M', 'quantity', 1 + g % 3, 'unit_price', 19.99,
      'sku', 'SKU-' || ${n}, 'product_id', null, 'external_product_id', ${n}::text, 'image_url', 'https://cdn.example/p/' || ${n} || '.jpg')`;
  await pool.query(
    `insert into orders (id, store_id, origin, source, external_id, external_number, external_status, order_number, status,
       payment_method, payment_status, payment_external_method, payment_external_method_title, is_cod, total, discount, shipping,
       cod_fee, currency, customer_name, customer_email, customer_phone, customer_address, customer_city, customer_postcode,
       customer_country, items, note, content_hash, created_at, updated_at)
     select gen_random_uuid(), $1, 'api', 'api', 'seed-' || g, (100000 + g)::text, 'processing', (100000 + g)::text,
       (array['pending', 'confirmed', 'shipped', 'completed', 'cancelled'])[1 + g % 5],
       'manual', 'paid', 'card', 'Credit card', false, 64.9700, 0, 5, 0, 'USD',
       'Customer ' || g, 'customer' || g || '@mail.example', '+1 202 555 ' || lpad((g % 10000)::text, 4, '0'),
       g || ' Main Street', 'Springfield', '12345', 'US',
       jsonb_build_array(${item('(g % 50)')}, ${item('(g % 50 + 1)')}, ${item('(g % 50 + 2)')}),
       case when g % 7 = 0 then 'Leave at the door' end, md5(g::text),
       t.now - make_interval(secs => g * 30), t.now - make_interval(secs => g * 30)
     from (select date_trunc('milliseconds', now()) as now) as t, generate_series(1, $2::int) as g`,
    [storeId, count],
  );
  await pool.query('analyze orders');
}
