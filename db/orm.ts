import { defineConfig, MikroORM, type PostgreSqlConnection } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';
import { executeBound } from './bound.js';
import pg from 'pg';

export interface OrmOptions {
  databaseUrl: string;
  /** Connections this process may hold; keep small: API, worker and CLI share one server. */
  poolMax?: number;
  debug?: boolean;
  /**
   * Longest wait for one statement's answer (0: none). A frozen PostgreSQL then gives a prompt 503
   * instead of requests that hang; migrations run without it (an index build may take long).
   */
  queryTimeoutMs?: number;
  /**
   * Never close an idle pooled connection (the pool's minimum is its maximum); fillPool then opens them all.
   * A fixed-size pool, as HikariCP advises for a server: each new PostgreSQL connection costs a backend's
   * start, its catalogue caches and the first parse of every prepared statement on it, and a pool that
   * closes idle connections after 10 s and grows again under the next burst makes that burst's first
   * requests wait for it (api-mixed: p99 253 ms in the first 2 s of a 500 req/s step, under 100 ms after).
   */
  fixedPool?: boolean;
  /** The name PostgreSQL shows for these connections (pg_stat_activity.application_name). */
  applicationName?: string;
}

/**
 * The single MikroORM configuration used by the API, the worker, the CLI and tests. Queries go through
 * db/bound.ts (values bound, never written into SQL text): MikroORM's own queries write values into the
 * text, one character at a time for a string, so they are not used for data.
 */
export const ormConfig = ({
  databaseUrl,
  poolMax = 10,
  debug = false,
  queryTimeoutMs = 8_000,
  fixedPool = false,
  applicationName,
}: OrmOptions) =>
  defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Silent: the CLI's --json output must be the only thing on stdout; callers report progress themselves.
    migrations: { migrationsList, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    pool: { min: fixedPool ? poolMax : 0, max: poolMax },
    // A frozen or unreachable PostgreSQL must give a prompt 503, not requests that hang forever.
    // client_encoding pinned: a server or PGCLIENTENCODING default of another encoding would mangle shoppers' text.
    driverOptions: {
      connectionTimeoutMillis: 5_000,
      client_encoding: 'UTF8',
      // No JIT: PostgreSQL compiles a statement whose estimated cost passes jit_above_cost, at every execution,
      // and a prepared plan's estimate can (the order write's read, once its store held 100,000 orders: 0.8 s
      // of compiling for a 0.4 ms look-up, which emptied the pool under load). Short OLTP statements never gain.
      options: '-c jit=off',
      ...(queryTimeoutMs ? { query_timeout: queryTimeoutMs } : {}),
      ...(applicationName ? { application_name: applicationName } : {}),
    },
    debug,
    // Entities are hydrated per request; no metadata cache on disk.
    metadataCache: { enabled: false },
  });

/** Opens an ORM (connections are made lazily on first use). */
export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/**
 * Opens every connection of the ORM's pool up to its maximum, all at once, and returns them to it (with
 * fixedPool they stay open). Call after the start, not before it: a process answers while they open.
 * Resolves to the number of connections open; a connection that cannot be opened is left for later use.
 */
export async function fillPool(orm: MikroORM): Promise<number> {
  const pool = await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
  // Holding all of them at once is what makes the pool open the missing ones (it hands out idle ones first).
  const opened = await Promise.allSettled(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
  for (const r of opened) if (r.status === 'fulfilled') r.value.release();
  return pool.totalCount;
}

/**
 * Applies pending migrations on a connection of their own (no query timeout); safe to run from several
 * processes at once: an advisory lock serialises them. A schema that has every migration of this code
 * already is left at once, without the lock or the migrator.
 */
export async function migrate(databaseUrl: string): Promise<void> {
  // The lock lives on its own session so it guards the migrator whichever pooled connection it uses.
  const lock = new pg.Client({ connectionString: databaseUrl, client_encoding: 'UTF8' });
  await lock.connect();
  try {
    // Every start but a deploy's first finds nothing to apply. The migrator finds that too, but only
    // after a MikroORM of its own is made (about 0.25 s of CPU, which the API's start waited for).
    if (await allApplied(lock)) return;
    const runner = await openOrm({ databaseUrl, poolMax: 1, queryTimeoutMs: 0 });
    try {
      await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await runner.migrator.up();
    } finally {
      await runner.close();
    }
  } finally {
    await lock.end();
  }
}

/**
 * True when the migrator's table records every migration of this code. A name it records is committed
 * with its migration (transactional), so nothing is left to apply; when false, the migrator decides.
 */
async function allApplied(client: pg.Client): Promise<boolean> {
  try {
    const { rows } = await client.query<{ names: string[] | null }>('select array_agg(name::text) as names from mikro_orm_migrations');
    const applied = new Set(rows[0]?.names ?? []);
    return migrationsList.every((m) => applied.has(m.name));
  } catch (err) {
    // A database never migrated has no such table (undefined_table): everything is to apply.
    if ((err as { code?: string }).code === '42P01') return false;
    throw err;
  }
}

const MIGRATION_LOCK = 727_001;

/** The names of the migrations this code has that the database has not applied (all of them on an empty database). */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const runner = await openOrm({ databaseUrl, poolMax: 1 });
  try {
    // Asking the migrator would create its table: an empty database must stay untouched.
    const [row] = await executeBound<{ found: string | null }>(
      runner.em.fork(),
      `select to_regclass('mikro_orm_migrations')::text as found`,
    );
    if (!row?.found) return migrationsList.map((m) => m.name);
    return (await runner.migrator.getPending()).map((m) => m.name);
  } finally {
    await runner.close();
  }
}
