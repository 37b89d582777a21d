// Shared pieces of the chaos tests: a service of their own (database, Temporal dev server, listening
// API) that a test can break and mend, and the counting of what reached the receivers.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { freePort } from '../../config/free-port.js';
import { openOrm } from '../../db/orm.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';
import { restartablePort, startDevServer, stopChild, type DevServer } from '../../dev/temporal/dev-server.js';
import { testEnv } from '../global-setup.js';
import { testResolver, type TestApp } from '../helpers/app.js';
import type { Received } from '../helpers/receiver.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const log = (line: string) => console.log(`[chaos] ${line}`);

/** A Temporal dev server with durable state on a fixed port, so it can be stopped and started again. */
export async function restartableTemporal(name: string) {
  const dbFile = join(mkdtempSync(join(tmpdir(), `sc-chaos-${name}-`)), 'temporal.db');
  const port = await restartablePort();
  const start = () =>
    startDevServer({ cli: inject('temporalCli'), dbFile, port, logFile: join(inject('logDir'), `temporal-chaos-${name}.log`) });
  let server: DevServer = await start();
  return {
    address: server.address,
    stop: () => server.stop(),
    async restart() {
      server = await start();
    },
  };
}

export interface ChaosApp {
  app: FastifyInstance;
  orm: MikroORM;
  config: ResolvedConfig;
  temporal: TemporalHandle;
  baseUrl: string;
  close(): Promise<void>;
}

/** The real API on a loopback port, against the given database and Temporal (plugins call it over HTTP). */
export async function listeningApp(o: {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  poolMax?: number;
  logName?: string;
}): Promise<ChaosApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: o.databaseUrl,
    TEMPORAL_ADDRESS: o.temporalAddress,
    TEMPORAL_TASK_QUEUE: o.taskQueue,
    ALLOW_LOOPBACK_TARGETS: 'true',
    PUBLIC_URL: baseUrl,
    SECRETS_KEY: inject('secretsKey'),
    WEBHOOK_TIMEOUT_MS: '5000',
  }) as ResolvedConfig;
  const orm = await openOrm({ databaseUrl: o.databaseUrl, poolMax: o.poolMax ?? 8 });
  const temporal = createTemporalClient({ address: o.temporalAddress, namespace: config.temporalNamespace, taskQueue: o.taskQueue });
  const logFile = createWriteStream(join(inject('logDir'), o.logName ?? 'api.log'), { flags: 'a' });
  const app = await buildApp({ config, orm, temporal, logger: createLogger('warn', logFile), resolve: testResolver });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    orm,
    config,
    temporal,
    baseUrl,
    async close() {
      await app.close();
      await temporal.connection.close().catch(() => undefined);
      await orm.close();
      logFile.end();
    },
  };
}

/** What connectedPlugin (test/connections/fixtures.ts) needs of a test app. */
export const asTestApp = (a: ChaosApp) => ({ orm: a.orm, baseUrl: a.baseUrl }) as unknown as TestApp & { baseUrl: string };

/** The worker process as production runs it (`node --import tsx temporal/worker-main.ts`), so it can be SIGKILLed. */
export function workerProcess(o: { databaseUrl: string; temporalAddress: string; taskQueue: string; logName: string }): {
  child: ChildProcess;
  exited: Promise<void>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'temporal/worker-main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...testEnv({
        databaseUrl: o.databaseUrl,
        temporalAddress: o.temporalAddress,
        taskQueue: o.taskQueue,
        secretsKey: inject('secretsKey'),
      }),
      WEBHOOK_TIMEOUT_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(join(inject('logDir'), o.logName), { flags: 'a' });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { child, exited };
}
export { stopChild };

/** Deliveries a receiver got, counted per event id (the body's id). */
export function countByEvent(received: Received[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of received) {
    const id = (JSON.parse(r.body) as { id: string }).id;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** Polls until check() holds; returns how long it took. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await sleep(250);
  }
  throw new Error(`${what} not reached within ${timeoutMs} ms`);
}

/** A number from SQL. */
export const countSql = async (orm: MikroORM, sql: string, params: unknown[] = []) =>
  Number((await orm.em.fork().execute<{ n: string }[]>(sql, params))[0]!.n);
