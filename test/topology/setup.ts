// Once per topology run: a fresh database and a Temporal server for the production processes under
// test. TEMPORAL_ADDRESS names an existing Temporal (e.g. the PostgreSQL-backed server of
// scripts/temporal-postgres.sh, namespace `default` registered); without it a dev server is started.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, startEmbeddedPostgres } from '../../dev/db/embedded.js';
import { migrate } from '../../db/orm.js';
import { ensureTemporalCli, startDevServer } from '../../dev/temporal/dev-server.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const say = (line: string) => console.log(`[topology setup] ${line}`);

declare module 'vitest' {
  export interface ProvidedContext {
    topology: { databaseUrl: string; temporalAddress: string; taskQueue: string; secretsKey: string; logDir: string };
  }
}

export default async function setup(project: TestProject) {
  for (const entry of ['dist/api/server.js', 'dist/temporal/worker-main.js', 'dist/workflow-bundle.js'])
    if (!existsSync(resolve(repoRoot, entry)))
      throw new Error(`${entry} is missing: run \`npm run build\` first (npm run test:topology does)`);
  const stops: (() => Promise<unknown>)[] = [];
  const logDir = resolve(repoRoot, '.data', 'topology-logs');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    say('no DATABASE_URL: starting embedded PostgreSQL under .data/test-pg …');
    const local = await startEmbeddedPostgres(resolve(repoRoot, '.data', 'test-pg'), { port: 0 });
    stops.unshift(() => local.stop());
    serverUrl = local.url;
  }
  const url = new URL(serverUrl);
  url.pathname = `/sc_topology_${runId}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  stops.unshift(() => dropDatabase(databaseUrl));
  // Migrated here once, so the four processes starting together find nothing to do.
  await migrate(databaseUrl);

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (temporalAddress) say(`using the Temporal server at ${temporalAddress}`);
  else {
    const temporal = await startDevServer({ cli: ensureTemporalCli(repoRoot, say), logFile: resolve(logDir, 'temporal.log') });
    stops.unshift(() => temporal.stop());
    temporalAddress = temporal.address;
    say(`Temporal dev server at ${temporalAddress}`);
  }

  project.provide('topology', {
    databaseUrl,
    temporalAddress,
    taskQueue: `store-commerce-topology-${runId}`,
    secretsKey: randomBytes(32).toString('hex'),
    logDir,
  });
  return async () => {
    for (const stop of stops) await stop().catch((err: Error) => console.error(`[topology teardown] ${err.message}`));
  };
}

async function dropDatabase(databaseUrl: string) {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`drop database if exists "${new URL(databaseUrl).pathname.slice(1)}" with (force)`);
  await client.end();
}
