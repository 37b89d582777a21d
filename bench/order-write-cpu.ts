// CPU of the service's order write alone, with each way of compressing the big order documents, in one run:
//   npx tsx bench/order-write-cpu.ts [items=200] [orders per round=300]
// No HTTP, no load generator: `upsertOrders` called one order after another, so what is left is this process's
// CPU (validation, cleaning, the rows and events as JSON) and the CPU of the database's backends (read from
// /proc, so PostgreSQL must run on this host). Two databases, migrated alike but for the compression of
// orders.items and order_events.payload (lz4, as the migrations leave them, and pglz, PostgreSQL's default),
// each a store of 10,000 earlier orders; the rounds alternate between them. 1 order in 5 is an update.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../db/orm.js';
import { upsertOrders } from '../services/orders/upsert.js';
import type { OrderSender } from '../services/orders/sender.js';
import { freshDatabase } from './lib/database.js';
import { cleanup, installExitHandlers } from './lib/cleanup.js';
import { seedOrders } from './lib/fixtures.js';
import { orderInput } from './lib/order-bodies.js';
import { median } from './lib/stats.js';

const ITEMS = Number(process.argv[2] ?? 200);
const ORDERS = Number(process.argv[3] ?? 300);
const ROUNDS = 3;
const log = (line: string) => console.log(`[order-write-cpu] ${line}`);

/** CPU ms of these processes so far (utime + stime, in clock ticks of 10 ms). */
function processCpuMs(pids: number[]): number {
  let ms = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    ms += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return ms;
}

interface Subject {
  compression: 'lz4' | 'pglz';
  orm: MikroORM;
  sender: OrderSender;
  backends: number[];
  written: number;
  js: number[];
  postgres: number[];
}

async function subject(compression: 'lz4' | 'pglz'): Promise<Subject> {
  const url = await freshDatabase(log);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  if (compression === 'pglz')
    await pool.query(`alter table orders alter column items set compression pglz;
      alter table order_events alter column payload set compression pglz`);
  const storeId = randomUUID();
  await pool.query(
    `insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee) values ($1, 'cpu', $2, 'USD', 'full', 'paid', true, 0)`,
    [storeId, `cpu-${storeId}`],
  );
  await seedOrders(pool, storeId, 10_000);
  await pool.end();
  const orm = await openOrm({ databaseUrl: url, poolMax: 2 });
  const sender: OrderSender = {
    storeId,
    storeCurrency: 'USD',
    origin: 'api',
    source: 'api',
    connectionId: null,
    defaultKind: 'service',
    actor: 'key:bench',
    publicUrl: 'http://127.0.0.1',
  };
  const s: Subject = { compression, orm, sender, backends: [], written: 0, js: [], postgres: [] };
  await writeOrders(s, 200); // warm-up: prepared statements, the JIT
  const rows = await orm.em.fork().execute<{ pid: number }[]>('select pid from pg_stat_activity where datname = current_database()');
  s.backends = rows.map((r) => r.pid);
  return s;
}

async function writeOrders(s: Subject, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const update = i % 5 === 4 && s.written > 10;
    const id = update ? `o-${s.written - 5}` : `o-${++s.written}`;
    const input = JSON.parse(JSON.stringify(orderInput(id, ITEMS, update ? `update ${i}` : null)));
    const [outcome] = await upsertOrders(s.orm.em.fork(), s.sender, [input]);
    if (!outcome?.ok) throw new Error(`order ${id} not written: ${JSON.stringify(outcome)}`);
  }
}

async function round(s: Subject): Promise<void> {
  const pg0 = processCpuMs(s.backends);
  const js0 = process.cpuUsage();
  await writeOrders(s, ORDERS);
  const js = process.cpuUsage(js0);
  s.js.push((js.user + js.system) / 1000 / ORDERS);
  s.postgres.push((processCpuMs(s.backends) - pg0) / ORDERS);
}

installExitHandlers(log);
try {
  const subjects = [await subject('lz4'), await subject('pglz')];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const s of subjects) await round(s);
    log(`round ${r}/${ROUNDS}: ${subjects.map((s) => `${s.compression} PostgreSQL ${s.postgres.at(-1)!.toFixed(2)} ms`).join(', ')}`);
  }
  const fmt = (xs: number[]) => `${median(xs).toFixed(2)} (${xs.map((x) => x.toFixed(2)).join(' / ')})`;
  for (const s of subjects)
    log(`${s.compression}: ms of CPU per ${ITEMS}-item order, median (rounds): PostgreSQL ${fmt(s.postgres)}, this process ${fmt(s.js)}`);
  log(`PostgreSQL lz4 ÷ pglz: ${(median(subjects[0]!.postgres) / median(subjects[1]!.postgres)).toFixed(2)}`);
  for (const s of subjects) await s.orm.close();
} finally {
  await cleanup(log);
}
