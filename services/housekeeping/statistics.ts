import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { TABLES } from '../../db/tables/index.js';

// Our hot statements are prepared (db/prepared.ts): each connection plans one once and keeps that plan
// until the table's statistics change. Autovacuum's ANALYZE is what changes them. On a server with
// `autovacuum = off` (CI's and the benchmark's machines run so), nothing ever does: a plan made while a
// table was young stays for the connection's life, however big the table grows. Measured: the delivery
// claim read 3,000 buffers a call (35 ms) by sequential scan at 100 orders/s, and the API failed half its
// orders at 200/s. So when autovacuum will not analyze a table, this does, at autovacuum's own threshold.

/** Every table of ours: the declared ones and the two MikroORM maps. Names fixed here, never taken from input. */
const OUR_TABLES: ReadonlySet<string> = new Set([...TABLES.map((t) => t.name), 'stores', 'api_keys']);

/**
 * A table is analyzed at most this often. Every ANALYZE makes each connection plan the table's statements
 * anew (five times before it keeps a plan again): a young table growing 10 % every few seconds was analyzed
 * at every check, and the many-store benchmark's p99 rose with it. One ANALYZE of a table past its first
 * thousand rows is what turns its kept plans from sequential scans to index scans; later ones change little.
 */
export const ANALYZE_INTERVAL_S = 60;

/**
 * Our tables that autovacuum will not analyze (off on the server, or `autovacuum_enabled = false` on the
 * table) and that changed by more than autovacuum's default analyze threshold since their last ANALYZE
 * (50 rows + 10 % of the rows the statistics know of; a table never analyzed knows of none), at most once
 * every `intervalS` seconds.
 */
export async function tablesNeedingAnalyze(em: EntityManager, intervalS = ANALYZE_INTERVAL_S): Promise<string[]> {
  const rows = await executeBound<{ table: string }>(
    em,
    `select s.relname as table
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname = any(?::text[])
        and (current_setting('autovacuum') = 'off'
             or 'autovacuum_enabled=false' = any(coalesce(c.reloptions, '{}'))
             or 'autovacuum_enabled=off' = any(coalesce(c.reloptions, '{}')))
        and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
        and coalesce(greatest(s.last_analyze, s.last_autoanalyze), '-infinity') < now() - make_interval(secs => ?)
      order by s.n_mod_since_analyze desc`,
    [[...OUR_TABLES], intervalS],
  );
  return rows.map((r) => r.table).filter((t) => OUR_TABLES.has(t));
}

/**
 * ANALYZE of the tables tablesNeedingAnalyze names, one after the other; returns the ones analyzed.
 * SKIP_LOCKED: a table another process is analyzing (or vacuuming) right now is left to it. ANALYZE reads a
 * sample (30,000 rows at the default statistics target) and blocks no reads or writes.
 */
export async function analyzeStaleTables(em: EntityManager, intervalS = ANALYZE_INTERVAL_S): Promise<string[]> {
  const analyzed: string[] = [];
  for (const table of await tablesNeedingAnalyze(em, intervalS)) {
    // The name is one of OUR_TABLES (checked above), not a value: identifiers cannot be bound parameters.
    await executeBound(em, `analyze (skip_locked) ${table}`);
    analyzed.push(table);
  }
  return analyzed;
}
