import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config/env.js';
import { readEmbeddedUrl } from '../../dev/db/embedded-url.js';
import { ormConfig, pendingMigrations } from '../../db/orm.js';
import { CommandError } from './errors.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What a command works with. */
export interface AdminContext {
  config: Config;
  em: EntityManager;
  databaseUrl: string;
}

/**
 * Opens the database `npm start` uses (DATABASE_URL, else its running embedded PostgreSQL). It never
 * changes the schema: a schema behind this code is refused with the command that brings it up (`migrate`),
 * unless the command is that one.
 */
export async function openAdminContext(
  config: Config,
  options: { migrates?: boolean } = {},
): Promise<AdminContext & { close(): Promise<void> }> {
  const embedded = !config.databaseUrl;
  const databaseUrl = config.databaseUrl ?? readEmbeddedUrl(resolve(repoRoot, config.dataDir));
  if (!databaseUrl) throw new CommandError('no DATABASE_URL and no running npm start; set DATABASE_URL or start the service');
  // stdout belongs to the command's output: the ORM's messages (the migrator's included) go to stderr.
  const orm = await MikroORM.init({
    ...ormConfig({ databaseUrl, poolMax: 2 }),
    logger: (line: string) => process.stderr.write(`${line}\n`),
    colors: process.stderr.isTTY === true,
  });
  let pending: string[];
  try {
    pending = options.migrates ? [] : await pendingMigrations(databaseUrl);
  } catch (err) {
    await orm.close().catch(() => undefined);
    throw unreachable(err, databaseUrl, embedded);
  }
  if (pending.length) {
    await orm.close();
    throw new CommandError(
      `the database schema is ${pending.length} migration(s) behind this version: run \`npm run --silent admin -- migrate\` (or npm start, which migrates) first`,
    );
  }
  return { config, em: orm.em.fork(), databaseUrl, close: () => orm.close() };
}

function unreachable(err: unknown, databaseUrl: string, embedded: boolean): unknown {
  const code = (err as { code?: string }).code;
  if (code !== 'ECONNREFUSED' && code !== 'ENOTFOUND' && code !== 'ETIMEDOUT' && code !== '3D000') return err;
  const { host } = new URL(databaseUrl);
  return new CommandError(
    embedded
      ? `the embedded PostgreSQL of npm start does not answer at ${host}; is npm start still running? (or set DATABASE_URL)`
      : `cannot reach the database of DATABASE_URL at ${host}: ${(err as Error).message}`,
  );
}
