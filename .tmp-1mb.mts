import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './db/orm.js';
import { executeBound } from './db/bound.js';
import { PostgresDriver } from '/work/main/db/postgres-driver.js';
const url = 'postgres://postgres@127.0.0.1:5432/postgres';
// A 1 MB order's items as JSON: quotes escaped as \" by JSON, so backslashes too.
const items = Array.from({ length: 2500 }, (_, i) => ({ name: `Crème "brûlée" box ${i}`, note: "it's \\ fine ".repeat(25), quantity: 1 }));
const big = JSON.stringify(items);
console.log('value bytes', Buffer.byteLength(big));
async function time(label: string, orm: MikroORM, run: (em: any) => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await run(orm.em.fork());
  const n = 20; const t0 = process.hrtime.bigint(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await run(orm.em.fork());
  const wall = Number(process.hrtime.bigint() - t0) / 1e6 / n; const cpu = process.cpuUsage(c0);
  console.log(label.padEnd(48), 'wall ms/op', wall.toFixed(2), ' API CPU ms/op', ((cpu.user + cpu.system) / 1000 / n).toFixed(2));
}
const sql = 'select length(?::jsonb::text) as n';
const plain = await MikroORM.init(ormConfig({ databaseUrl: url, poolMax: 1 }));
const overridden = await MikroORM.init({ ...ormConfig({ databaseUrl: url, poolMax: 1 }), driver: PostgresDriver });
await time('em.execute, MikroORM escape (no override)', plain, (em) => em.execute(sql, [big]));
await time('em.execute, linear escape override (main)', overridden, (em) => em.execute(sql, [big]));
await time('executeBound (this branch)', plain, (em) => executeBound(em, sql, [big]));
await plain.close(); await overridden.close();
