import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { createTemporalClient } from '../../temporal/client.js';
import { ensureTemporalCli, stopChild } from '../../dev/temporal/dev-server.js';
import { trackChild } from './cleanup.js';
import { postgresBackends, type CpuGroups } from './cpu.js';
import type { BenchEnv } from './environment.js';
import { logDir, repoRoot } from './processes.js';

export interface TemporalOnPostgres {
  client: Client;
  /** Our processes with this Temporal server and its two databases' backends in place of the dev server. */
  groups: CpuGroups;
  where: string;
}

/** Up to 10 minutes: the first start builds the Temporal server with Go (scripts/temporal-postgres.sh). */
const START_TIMEOUT_MS = 600_000;

/**
 * Runs `fn` with a Temporal server on PostgreSQL persistence (`npm run temporal:postgres`, on the bench's
 * PostgreSQL server, in two databases of its own) and the worker moved onto it; afterwards the server is
 * stopped, its databases dropped and a worker on the dev server started again. Throws, naming the reason,
 * when the server cannot be had (no Go to build it, schema setup failing, …).
 */
export async function withTemporalPostgres<T>(env: BenchEnv, fn: (t: TemporalOnPostgres) => Promise<T>): Promise<T> {
  const built =
    existsSync(resolve(repoRoot, '.tools', 'bin', 'temporal-server')) &&
    existsSync(resolve(repoRoot, '.tools', 'bin', 'temporal-sql-tool'));
  if (!built && spawnSync('go', ['version']).status !== 0)
    throw new Error(
      'no Temporal server binary in .tools/bin and no Go to build it (npm run temporal:postgres builds it with Go, ~3 minutes the first time)',
    );
  const db = new URL(env.databaseUrl);
  const stamp = Date.now().toString(36);
  const names = { main: `sc_bench_temporal_${stamp}`, visibility: `sc_bench_temporal_vis_${stamp}` };
  // A port with its 20 neighbours free (the server's services take port … port+20).
  const port = 20_000 + Math.floor(Math.random() * 400) * 25;
  const log = createWriteStream(resolve(logDir, 'temporal-postgres.log'));
  const child = spawn('bash', ['scripts/temporal-postgres.sh'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      TEMPORAL_DB_HOST: db.hostname,
      TEMPORAL_DB_PORT: db.port || '5432',
      TEMPORAL_DB_USER: decodeURIComponent(db.username || 'postgres'),
      TEMPORAL_DB_PASSWORD: decodeURIComponent(db.password),
      TEMPORAL_DB: names.main,
      TEMPORAL_VISIBILITY_DB: names.visibility,
      TEMPORAL_PORT: String(port),
      TEMPORAL_CLI: ensureTemporalCli(repoRoot, env.log),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const address = `127.0.0.1:${port}`;
  let connection: ReturnType<typeof createTemporalClient> | undefined;
  try {
    env.log(
      `Temporal on PostgreSQL: starting at ${address} (databases ${names.main}, ${names.visibility}; the first start builds the server with Go)`,
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `npm run temporal:postgres exited (${child.exitCode ?? child.signalCode}) before serving; see .data/bench-logs/temporal-postgres.log`,
        );
      if (Date.now() > deadline) throw new Error(`Temporal on PostgreSQL did not serve within ${START_TIMEOUT_MS / 1000} s`);
      try {
        connection ??= createTemporalClient({ address, namespace: 'default', taskQueue: 'store-commerce' });
        await connection.client.workflow.count('ExecutionStatus="Running"');
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    env.log(`Temporal on PostgreSQL: serving at ${address}; moving the worker onto it`);
    await env.worker.stop();
    await env.worker.start({ TEMPORAL_ADDRESS: address });
    const groups: CpuGroups = {
      api: env.oursCpu.api!,
      worker: () => {
        const pid = env.worker.pid();
        return pid ? [pid] : [];
      },
      postgres: env.oursCpu.postgres!,
      temporal: () => (child.pid ? [child.pid] : []),
      'temporal-postgres': () => [...postgresBackends(names.main), ...postgresBackends(names.visibility)],
    };
    return await fn({
      client: connection.client,
      groups,
      where: `Temporal server 1.29.1 on PostgreSQL persistence and visibility (npm run temporal:postgres) at ${address}, databases on the bench's PostgreSQL server, on this host`,
    });
  } finally {
    await env.worker.stop();
    await connection?.connection.close().catch(() => undefined);
    await stopChild(child);
    await dropDatabases(env.databaseUrl, [names.main, names.visibility]).catch((err: Error) =>
      env.log(`could not drop ${names.main}: ${err.message}`),
    );
    await env.worker.start();
    env.log('Temporal on PostgreSQL: stopped; the worker is back on the dev server');
  }
}

async function dropDatabases(databaseUrl: string, names: string[]): Promise<void> {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const name of names) await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}
