import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig, type ResolvedConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { freePort } from '../../config/free-port.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';

export interface TestApp {
  app: FastifyInstance;
  orm: MikroORM;
  config: ResolvedConfig;
  temporal: TemporalHandle;
  /** inject() from a client IP of its own, so anonymous per-IP limits of other files never interfere. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * Builds the real app against the run's PostgreSQL and Temporal; env overrides tune config (short timers).
 * DATABASE_URL among them points it at a database of its own (test/helpers/isolated.ts), where no other file's rows or jobs reach.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const databaseUrl = env.DATABASE_URL ?? inject('databaseUrl');
  const temporalAddress = inject('temporalAddress');
  const config = loadConfig({
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: inject('taskQueue'),
    ALLOW_LOOPBACK_TARGETS: 'true',
    PUBLIC_URL: 'http://127.0.0.1:3999',
    SECRETS_KEY: inject('secretsKey'),
    ...env,
    DATABASE_URL: databaseUrl,
  }) as ResolvedConfig;
  const orm = await openOrm({ databaseUrl, poolMax: 5 });
  const temporal = createTemporalClient({ address: temporalAddress, namespace: config.temporalNamespace, taskQueue: config.taskQueue });
  const logFile = createWriteStream(resolve(inject('logDir'), 'api.log'), { flags: 'a' });
  const app = await buildApp({ config, orm, temporal, logger: createLogger('info', logFile), resolve: testResolver });
  await app.ready();
  const ip = randomLoopbackIp();
  return {
    app,
    orm,
    config,
    temporal,
    request: (options) => app.inject({ remoteAddress: ip, ...options }),
    async close() {
      await app.close();
      await temporal.connection.close().catch(() => undefined);
      await orm.close();
      logFile.end();
    },
  };
}

/**
 * DNS for tests, which must never query a real resolver: names under .example resolve as listed,
 * anything else does not resolve. (RFC 2606 reserves .example, so no real name is shadowed.)
 */
export const TEST_DNS: Record<string, string[]> = {
  'hooks.public.example': ['93.184.215.14'],
  'v6.public.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'private.example': ['10.0.0.7'],
  'loopback.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.215.14', '192.168.1.20'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'cgnat.example': ['100.64.1.1'],
  'ula.example': ['fd00::1'],
};
export const testResolver = async (host: string): Promise<string[]> => {
  const found = TEST_DNS[host.toLowerCase()];
  if (!found) throw Object.assign(new Error(`test DNS: ${host} does not resolve`), { code: 'ENOTFOUND' });
  return found;
};

/** A loopback address (127.x.y.z) to stand for one client in inject(); no packet is ever sent to it. */
export function randomLoopbackIp(): string {
  const b = () => 1 + Math.floor(Math.random() * 254);
  return `127.${b()}.${b()}.${b()}`;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The app listening on a loopback port, with PUBLIC_URL pointing at it (for browsers and HTTP clients). */
export async function createListeningTestApp(env: Record<string, string> = {}): Promise<TestApp & { baseUrl: string }> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PUBLIC_URL: publicUrl, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { ...t, baseUrl: publicUrl };
}
