import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { executeBound } from '../../db/bound.js';

// Retention deletes millions of rows from a table that was years in the making; PostgreSQL reclaims them
// only when the table is vacuumed. That is autovacuum's job (the migrations set these tables to start at
// 2 % dead), but a server may run with `autovacuum = off` (ours in CI does, and so did the soak's: 2 M dead
// rows stayed for 30 minutes), or with it off for the table. Then retention vacuums what it pruned itself.

/** The tables retention prunes: names fixed here, never taken from input. */
export type PrunedTable = 'webhook_deliveries' | 'order_events';

/** True when autovacuum will not visit the table: off on the server, or `autovacuum_enabled = false` on the table. */
export async function autovacuumOff(em: EntityManager, table: PrunedTable): Promise<boolean> {
  const [row] = await executeBound<{ off: boolean }>(
    em,
    `select current_setting('autovacuum') = 'off'
       or coalesce((select 'autovacuum_enabled=false' = any(c.reloptions) or 'autovacuum_enabled=off' = any(c.reloptions)
                    from pg_class c where c.oid = ?::regclass), false) as off`,
    [table],
  );
  return row!.off;
}

/**
 * VACUUM of one table, on a connection of its own: VACUUM cannot run in a transaction, and it may take
 * longer than the pool's 8 s query timeout on a big table. It takes no lock that stops reads or writes.
 * Throttled as autovacuum is by default (2 ms of sleep per 200 cost units), so the service's own
 * statements keep their share of the disk and the CPU while it runs. Resolves with the milliseconds it took.
 */
export async function vacuumTable(databaseUrl: string, table: PrunedTable): Promise<number> {
  const started = Date.now();
  const client = new pg.Client({
    connectionString: databaseUrl,
    client_encoding: 'UTF8',
    options: '-c statement_timeout=0 -c vacuum_cost_delay=2 -c vacuum_cost_limit=200',
  });
  await client.connect();
  try {
    await client.query(`vacuum (analyze) ${table === 'order_events' ? 'order_events' : 'webhook_deliveries'}`);
  } finally {
    await client.end();
  }
  return Date.now() - started;
}
