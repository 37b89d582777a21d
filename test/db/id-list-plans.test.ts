// The delivery statements that take a list of ids as one JSON value (db/sql-array.ts uuidInJson) keep a
// plan that reads webhook_deliveries through its primary key. Written as `id in (select
// jsonb_array_elements_text(…))`, the kept (generic) plan scanned the whole table while it held a few
// thousand rows: every claim and every recorded result of a small store read all of them. The plans are
// PostgreSQL's own (EXPLAIN of the generic plan), on a database of the test's own with 3,000 deliveries.
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOrm } from '../../db/orm.js';
import { CLAIM, RECORD } from '../../services/webhooks/lane.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { createTestStore } from '../helpers/store.js';

const DELIVERIES = 3000;

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let client: pg.Client;
let deliveryId: string;

beforeAll(async () => {
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 2 });
  const { store } = await createTestStore(orm);
  const endpoint = await createEndpoint(orm.em.fork(), {
    storeId: store.id,
    url: 'http://127.0.0.1:9/hooks',
    events: ['*'],
    secretsKey: Buffer.alloc(32, 7),
    policy: { allowLoopback: true },
  });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // One order, one event per delivery (a delivery is unique per event and endpoint), all delivered.
  await client.query(
    `insert into orders (id, store_id, origin, source, status, payment_method, payment_status, total, currency, content_hash)
     values (gen_random_uuid(), $1, 'api', 'api', 'pending', 'manual', 'pending', 10, 'USD', 'h')`,
    [store.id],
  );
  await client.query(
    `with e as (
       insert into order_events (id, store_id, order_id, type, actor, payload, dispatched_at)
       select gen_random_uuid(), $1, (select id from orders where store_id = $1), 'order.created', 'test', '{}'::jsonb, now()
       from generate_series(1, $3::int)
       returning id, order_id
     )
     insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, status, finished_at)
     select gen_random_uuid(), $1, $2, e.id, 'order.created', e.order_id, 'delivered', now() from e`,
    [store.id, endpoint.id, DELIVERIES],
  );
  await client.query('analyze');
  const { rows } = await client.query<{ id: string }>('select id from webhook_deliveries limit 1');
  deliveryId = rows[0]!.id;
});
afterAll(async () => {
  await client?.end();
  await orm?.close();
  await db?.drop();
});

/** The node types of PostgreSQL's generic plan of `text` run with `values`, with the relation each reads. */
async function genericPlan(text: string, values: unknown[]): Promise<string[]> {
  await client.query('begin');
  try {
    await client.query('set local plan_cache_mode = force_generic_plan');
    await client.query(`prepare checked as ${text}`);
    const literals = values.map((v) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`)).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (format json) execute checked(${literals})`);
    const nodes: string[] = [];
    const walk = (node: Record<string, unknown>) => {
      nodes.push(`${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}`);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
    return nodes;
  } finally {
    // A prepared statement outlives the transaction.
    await client.query('rollback');
    await client.query('deallocate all');
  }
}

describe('statements over a JSON list of delivery ids', () => {
  it('the naive form scans the whole table here (so the checks below can fail)', async () => {
    const plan = await genericPlan(
      `update webhook_deliveries d set duration_ms = 1 from jsonb_to_recordset($1::jsonb) as x(id uuid) where d.id = x.id`,
      [JSON.stringify([{ id: deliveryId }])],
    );
    expect(plan).toContain('Seq Scan on webhook_deliveries');
  });

  it('claiming reads webhook_deliveries through its primary key', async () => {
    const plan = await genericPlan(CLAIM.text, ['wf', 'run', 'act', JSON.stringify([deliveryId])]);
    expect(plan).not.toContain('Seq Scan on webhook_deliveries');
    expect(plan.some((n) => /Index.* Scan on webhook_deliveries/.test(n) || n === 'Bitmap Heap Scan on webhook_deliveries')).toBe(true);
  });

  it('recording results reads webhook_deliveries through its primary key', async () => {
    const plan = await genericPlan(RECORD.text, [
      JSON.stringify([{ id: deliveryId, status: 'delivered', response_status: 200, error: null, duration_ms: 5 }]),
    ]);
    expect(plan).not.toContain('Seq Scan on webhook_deliveries');
    expect(plan.some((n) => /Index.* Scan on webhook_deliveries/.test(n) || n === 'Bitmap Heap Scan on webhook_deliveries')).toBe(true);
  });
});
