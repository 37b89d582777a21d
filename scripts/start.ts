// `npm start`: the whole service on one machine, with local PostgreSQL and Temporal when none are configured.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../api/app.js';
import { decodeKey, loadConfig, type ResolvedConfig } from '../config/env.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../observability/logger.js';
import { ensureDatabase, startEmbeddedPostgres } from '../dev/db/embedded.js';
import { migrate, openOrm } from '../db/orm.js';
import { seedDemoStore } from '../services/demo.js';
import { createTemporalClient } from '../temporal/client.js';
import { ensureTemporalCliWithProgress } from '../dev/temporal/cli-build.js';
import { startDevServer } from '../dev/temporal/dev-server.js';
import { startWorker } from '../temporal/worker.js';
import { startMetricsPage } from '../observability/metrics-page.js';
import { apiMetrics, createMetricsRegistry } from '../observability/metrics.js';
import { prepareWorkerMetrics, temporalMetricsUrl } from '../temporal/metrics.js';
import { startTracing } from '../observability/tracing.js';
import { loadTemporalTracing } from '../temporal/tracing.js';
import { describeStartFailure, type StartStage } from './start-failure.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.log(`[start] ${line}`);
const stops: (() => Promise<unknown>)[] = [];
/** What is being started, so a failure can be explained in one line. */
const at: StartStage = { stage: 'config' };

async function main() {
  const tracing = await startTracing(process.env, 'service');
  if (tracing) stops.unshift(() => tracing.shutdown());
  const config = loadConfig();
  const dataDir = resolve(repoRoot, config.dataDir);

  at.stage = 'postgres';
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    say(`starting embedded PostgreSQL under ${config.dataDir}/pg …`);
    const pg = await startEmbeddedPostgres(resolve(dataDir, 'pg'), { say });
    stops.unshift(() => pg.stop());
    databaseUrl = pg.url;
  } else {
    at.databaseUrl = databaseUrl;
    // A database that does not exist yet is created when the role may.
    if (await ensureDatabase(databaseUrl)) say(`created the database ${new URL(databaseUrl).pathname.slice(1)}`);
  }

  let temporalAddress = config.temporalAddress;
  let uiUrl: string | null = null;
  if (!temporalAddress) {
    at.stage = 'temporal-cli';
    // On a terminal the progress line is redrawn in place; in a log, one line every 30 s.
    const tty = process.stdout.isTTY === true;
    const cli = await ensureTemporalCliWithProgress(repoRoot, {
      line: (text) => (tty ? process.stdout.write(`\r\x1b[2K[start] ${text}`) : say(text)),
      everyMs: tty ? 1000 : 30_000,
    });
    if (tty) process.stdout.write('\n');
    at.stage = 'temporal';
    say('starting the Temporal dev server …');
    const server = await startDevServer({
      cli,
      dbFile: resolve(dataDir, 'temporal.db'),
      ui: true,
      port: 7233,
      uiPort: 8233,
      logFile: resolve(dataDir, 'temporal.log'),
      namespace: config.temporalNamespace,
    });
    stops.unshift(() => server.stop());
    temporalAddress = server.address;
    uiUrl = server.uiUrl;
  }

  const resolved: ResolvedConfig = { ...config, databaseUrl, temporalAddress, secretsKey: config.secretsKey ?? localSecretsKey(dataDir) };
  const log = createLogger(config.logLevel);
  at.stage = 'migrations';
  at.databaseUrl = databaseUrl;
  const orm = await openOrm({ databaseUrl });
  stops.unshift(() => orm.close());
  say('applying migrations …');
  await migrate(databaseUrl);

  // One page for the whole service: the API and the worker run in this one process and share a registry.
  const registry = config.metricsPort ? createMetricsRegistry('start') : undefined;
  const observed = registry ? await prepareWorkerMetrics(registry, orm, 'start') : undefined;
  const worker = startWorker({ config: resolved, orm, log, metrics: observed, tracing: await loadTemporalTracing() });
  stops.unshift(() => worker.stop());
  const temporal = createTemporalClient({ address: temporalAddress, namespace: config.temporalNamespace, taskQueue: config.taskQueue });
  stops.unshift(() => temporal.connection.close());
  const app = await buildApp({ config: resolved, orm, temporal, logger: log, ...(registry ? { metrics: apiMetrics(registry) } : {}) });
  stops.unshift(() => app.close());
  Object.assign(at, { stage: 'api', port: config.port, host: config.host });
  await app.listen({ port: config.port, host: config.host });
  let metricsUrl: string | null = null;
  if (registry && observed) {
    Object.assign(at, { stage: 'metrics', port: config.metricsPort, host: config.metricsHost });
    const page = await startMetricsPage({
      host: config.metricsHost,
      port: config.metricsPort!,
      registry,
      appendFrom: [temporalMetricsUrl(observed)],
    });
    stops.unshift(() => page.close());
    metricsUrl = page.url;
  }

  at.stage = 'other';
  const demo = await seedDemoStore(orm.em.fork(), config.publicUrl);
  say(`API:           ${config.baseUrl}   (reference: ${config.publicUrl}/docs)`);
  if (uiUrl) say(`Temporal UI:   ${uiUrl}`);
  else say(`Temporal:      ${temporalAddress} (namespace ${config.temporalNamespace})`);
  if (metricsUrl) say(`Metrics:       ${metricsUrl}`);
  if (demo) {
    say(`Demo store "${demo.store.name}" created. These keys are shown only now:`);
    say(`  secret key:      ${demo.secretKey}`);
    say(`  publishable key: ${demo.publishableKey}`);
    say(`  try: curl -s -H "Authorization: Bearer ${demo.secretKey}" ${config.baseUrl}/me`);
    say(`  dashboard:       ${config.publicUrl}/dashboard  (sign in as ${demo.owner.email} / ${demo.owner.password})`);
    say(`  storefront:      ${config.publicUrl}/s/${demo.store.slug}`);
  } else {
    say('Existing data kept. New keys: npm run --silent admin -- key create --store <id> --kind secret');
    say(
      `Dashboard:     ${config.publicUrl}/dashboard (an account for a store: npm run --silent admin -- owner add --email <e> --store <id>)`,
    );
  }
  say('Ctrl-C stops everything.');
}

/** A development encryption key kept in the data folder, made on first start (production sets SECRETS_KEY). */
function localSecretsKey(dataDir: string): Buffer {
  const file = resolve(dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
    say(`made a development SECRETS_KEY in ${file}; set SECRETS_KEY yourself in production`);
  }
  return decodeKey(readFileSync(file, 'utf8').trim())!;
}

let stopping = false;
/** Stops what was started, newest first; after a failure quietly, so its one line is the last one printed. */
async function shutdown(code: number, failure?: string) {
  if (stopping) return;
  stopping = true;
  if (!failure) say('stopping …');
  for (const stop of stops) await stop().catch((err: Error) => failure || console.error(`[start] ${err.message}`));
  if (failure) console.error(`[start] ${failure}`);
  process.exit(code);
}
// Ctrl-C reaches us twice when npm forwards it too: a repeat must not cut the orderly stop short.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));

main().catch(async (err) => {
  // One line with the cause and the fix; the stack only on request.
  if (process.env.START_DEBUG) console.error(err);
  await shutdown(1, describeStartFailure(err, at));
});
