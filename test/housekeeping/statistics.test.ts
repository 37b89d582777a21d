// Planner statistics where autovacuum will not keep them (services/housekeeping/statistics.ts): a table that
// changed past autovacuum's analyze threshold is analyzed, by the call and by the worker's keeper, at most once
// a minute; one that changed less is left alone. The table is set `autovacuum_enabled = false`, so this holds whatever the
// server's autovacuum setting.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeStaleTables, tablesNeedingAnalyze } from '../../services/housekeeping/statistics.js';
import { StatisticsKeeper } from '../../temporal/statistics-keeper.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const TABLE = 'sign_in_throttle';
beforeAll(async () => {
  t = await createTestApp();
  await sql(`alter table ${TABLE} set (autovacuum_enabled = false)`);
  await sql(`analyze ${TABLE}`);
});
afterAll(async () => {
  await sql(`delete from ${TABLE} where bucket like 'statistics-test-%'`);
  await sql(`alter table ${TABLE} reset (autovacuum_enabled)`);
  await t.close();
});

const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(query, params);

interface TableStats {
  modified: number;
  lastAnalyze: Date | null;
}
async function stats(): Promise<TableStats> {
  const [row] = await sql<{ modified: string; last_analyze: Date | null }>(
    `select n_mod_since_analyze::text as modified, last_analyze from pg_stat_user_tables where relname = ?`,
    [TABLE],
  );
  return { modified: Number(row!.modified), lastAnalyze: row!.last_analyze ? new Date(row!.last_analyze) : null };
}

/** Inserts `n` rows of the test's own, then waits until the statistics collector counts them (flushed within about a second). */
async function insertRows(n: number): Promise<void> {
  const before = (await stats()).modified;
  await sql(
    `insert into ${TABLE} (bucket, failures, window_started_at) select 'statistics-test-' || ? || '-' || g, 1, now() - interval '1 day' from generate_series(1, ?) g`,
    [randomUUID(), n],
  );
  for (let tries = 0; (await stats()).modified < before + n; tries++) {
    if (tries > 50) throw new Error(`pg_stat_user_tables never counted the ${n} rows inserted into ${TABLE}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('planner statistics where autovacuum is off', () => {
  it('a table changed past 50 rows + 10 % is analyzed; one changed less is not', async () => {
    await sql(`analyze ${TABLE}`);
    await insertRows(20);
    expect(await tablesNeedingAnalyze(t.orm.em.fork(), 0)).not.toContain(TABLE);

    await insertRows(600);
    const before = await stats();
    expect(await tablesNeedingAnalyze(t.orm.em.fork(), 0)).toContain(TABLE);
    await analyzeStaleTables(t.orm.em.fork(), 0);
    const after = await stats();
    // Another process's keeper (the suite's worker) may have analyzed it first: either way it is analyzed now.
    expect(after.lastAnalyze!.getTime()).toBeGreaterThan(before.lastAnalyze?.getTime() ?? 0);
    expect(after.modified).toBeLessThan(before.modified);
    expect(await tablesNeedingAnalyze(t.orm.em.fork(), 0)).not.toContain(TABLE);
  });

  it('a table analyzed less than a minute ago waits, however much it changed', async () => {
    await sql(`analyze ${TABLE}`);
    await insertRows(600);
    expect(await tablesNeedingAnalyze(t.orm.em.fork())).not.toContain(TABLE);
    expect(await tablesNeedingAnalyze(t.orm.em.fork(), 0)).toContain(TABLE);
  });

  it('the worker’s keeper analyzes such a table on its own within one check', async () => {
    await insertRows(800);
    const before = await stats();
    const keeper = new StatisticsKeeper(t.orm, pino({ level: 'silent' }), 200, 0);
    keeper.start();
    try {
      for (let tries = 0; ((await stats()).lastAnalyze?.getTime() ?? 0) <= (before.lastAnalyze?.getTime() ?? 0); tries++) {
        if (tries > 50) throw new Error('the keeper did not analyze the table within 5 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await keeper.stop();
    }
    expect((await stats()).modified).toBeLessThan(800);
  });

  it('names only tables of ours, whatever the database holds', async () => {
    await sql(`create table if not exists statistics_test_stranger (id int)`);
    try {
      await sql(`alter table statistics_test_stranger set (autovacuum_enabled = false)`);
      await sql(`insert into statistics_test_stranger select generate_series(1, 500)`);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await tablesNeedingAnalyze(t.orm.em.fork(), 0)).not.toContain('statistics_test_stranger');
    } finally {
      await sql(`drop table statistics_test_stranger`);
    }
  });
});
