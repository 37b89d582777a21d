// Once per test run: real PostgreSQL (a fresh database), a real Temporal dev server and a real worker process.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, ensureDatabase } from '../dev/db/embedded.js';
import { migrate } from '../db/orm.js';
import { ensureTemporalCli, startDevServer, stopChild } from '../dev/temporal/dev-server.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.log(`[test setup] ${line}`);

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    taskQueue: string;
    temporalCli: string;
    logDir: string;
    secretsKey: string;
  }
}

interface Stack {
  provided: { databaseUrl: string; temporalAddress: string; taskQueue: string; temporalCli: string; logDir: string; secretsKey: string };
  stop(): Promise<void>;
}

// Projects that need the stack (integration, browser) each call this in the same main process: the
// first starts it, the others share it, and the last teardown stops it.
const shared = globalThis as { storeCommerceStack?: Promise<Stack>; storeCommerceStackUsers?: number };

export default async function setup(project: TestProject) {
  shared.storeCommerceStackUsers = (shared.storeCommerceStackUsers ?? 0) + 1;
  const stack = await (shared.storeCommerceStack ??= startStack());
  for (const [key, value] of Object.entries(stack.provided)) project.provide(key as keyof Stack['provided'], value);
  return async () => {
    shared.storeCommerceStackUsers! -= 1;
    if (shared.storeCommerceStackUsers === 0) await stack.stop();
  };
}

async function startStack(): Promise<Stack> {
  const stops: (() => Promise<unknown>)[] = [];
  const logDir = resolve(repoRoot, '.data', 'test-logs');
  mkdirSync(logDir, { recursive: true });
  // Each run starts with fresh logs (the secrets test reads them; they must not grow without end).
  for (const name of ['api.log', 'worker.log', 'temporal.log']) rmSync(resolve(logDir, name), { force: true });
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

  // An isolated database per run, on the configured server or an embedded one.
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    say('no DATABASE_URL: starting embedded PostgreSQL under .data/test-pg …');
    const local = await startEmbeddedPostgres(resolve(repoRoot, '.data', 'test-pg'), { port: 0 });
    stops.unshift(() => local.stop());
    serverUrl = local.url;
  }
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/sc_test_${runId}`;
  const databaseUrl = dbUrl.toString();
  await ensureDatabase(databaseUrl);
  stops.unshift(() => dropDatabase(databaseUrl));
  await migrate(databaseUrl);
  say(`database ${dbUrl.pathname.slice(1)} migrated`);

  const cli = ensureTemporalCli(repoRoot, say);
  // `start-test`: the namespace of test/cli/start.test.ts, whose whole service would otherwise take over the
  // default namespace's housekeeping schedules (one namespace serves one deployment).
  // `metrics-test`, `tracing-test`, `outbound-fairness-test`: likewise for the worker processes of test/observability/, test/tracing/ and test/push/outbound-fairness;
  // `schema-gate-test` for the workers of test/temporal/worker-schema-gate.
  const temporal = await startDevServer({
    cli,
    logFile: resolve(logDir, 'temporal.log'),
    extraNamespaces: [
      'start-test',
      'metrics-test',
      'tracing-test',
      'outbound-fairness-test',
      'handover-test',
      'push-handover-test',
      'schema-gate-test',
    ],
  });
  stops.unshift(() => temporal.stop());
  say(`Temporal dev server at ${temporal.address}`);

  const taskQueue = `store-commerce-test-${runId}`;
  const secretsKey = randomBytes(32).toString('hex');
  const worker = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'temporal/worker-main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, ...testEnv({ databaseUrl, temporalAddress: temporal.address, taskQueue, secretsKey }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const workerLog = createWriteStream(resolve(logDir, 'worker.log'), { flags: 'a' });
  worker.stdout.pipe(workerLog);
  worker.stderr.pipe(workerLog);
  stops.unshift(() => stopChild(worker));

  return {
    provided: { databaseUrl, temporalAddress: temporal.address, taskQueue, temporalCli: cli, logDir, secretsKey },
    async stop() {
      // Recording mode: keep histories of the workflows this run's tests ran (test/replay/record.ts).
      if (process.env.RECORD_HISTORIES) {
        const { recordHistories } = await import('./replay/record.js');
        await recordHistories(temporal.address).then(
          (names) => say(`recorded histories: ${names.join(', ') || 'none'}`),
          (err: Error) => console.error(`[test teardown] recording histories failed: ${err.stack}`),
        );
      }
      for (const stop of stops) await stop().catch((err: Error) => console.error(`[test teardown] ${err.message}`));
    },
  };
}

/** The environment test processes share: short timers and loopback targets allowed. */
export function testEnv(o: {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  secretsKey: string;
}): Record<string, string> {
  return {
    SECRETS_KEY: o.secretsKey,
    DATABASE_URL: o.databaseUrl,
    TEMPORAL_ADDRESS: o.temporalAddress,
    TEMPORAL_TASK_QUEUE: o.taskQueue,
    ALLOW_LOOPBACK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    // Dispatchers end their activity soon when idle; circuits open, cool down and settle quickly.
    WEBHOOK_DISPATCH_IDLE_MS: '2000',
    WEBHOOK_CIRCUIT_FAILURES: '3',
    WEBHOOK_CIRCUIT_COOLDOWN_MS: '2000',
    WEBHOOK_CIRCUIT_MAX_WAIT_MS: '5000',
    LOG_LEVEL: 'info',
  };
}

async function dropDatabase(url: string) {
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`drop database if exists "${name}" with (force)`);
  await client.end();
}
