import type pg from 'pg';

/**
 * Seeds `count` live products into a store in one INSERT … SELECT generate_series, shaped like rows
 * services/catalog/create.ts writes (db/migrations/Migration20261122000400.ts): name, description, price,
 * images, categories, no stock limit, no variants; one product a minute back in time. Then ANALYZE.
 */
export async function seedProducts(pool: pg.Pool, storeId: string, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into products (id, store_id, name, description, price, compare_at_price, image_url, images, category, categories,
       type, stock, variants, sku, created_at, updated_at)
     select gen_random_uuid(), $1, 'Product ' || g, 'A fine product number ' || g || ', made to last.', (5 + g % 95) + 0.99,
       case when g % 4 = 0 then (10 + g % 95) + 0.99 end, 'https://cdn.example/p/' || g || '.jpg',
       array['https://cdn.example/p/' || g || '-1.jpg', 'https://cdn.example/p/' || g || '-2.jpg'],
       'Category ' || (g % 12), array['Category ' || (g % 12)], 'physical', null, '[]'::jsonb, 'SKU-' || g,
       t.now - make_interval(secs => g * 60), t.now - make_interval(secs => g * 60)
     from (select date_trunc('milliseconds', now()) as now) as t, generate_series(1, $2::int) as g
     returning id`,
    [storeId, count],
  );
  await pool.query('analyze products');
  return rows.map((r) => r.id);
}
