// The real app with test-only routes added before ready(), to exercise the shared plumbing
// (headers, errors, body limits) that every route present and future goes through.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';
import { randomLoopbackIp } from '../helpers/app.js';

export interface PlumbingApp {
  app: FastifyInstance;
  orm: MikroORM;
  temporal: TemporalHandle;
  /** Every log line the app wrote, as parsed JSON. */
  logs: Record<string, unknown>[];
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A loopback port nothing listens on: connections are refused at once. */
export const CLOSED_PORT_DATABASE = 'postgres://postgres@127.0.0.1:1/unreachable';
export const CLOSED_PORT_TEMPORAL = '127.0.0.1:1';

export async function buildPlumbingApp(
  options: {
    databaseUrl?: string;
    temporalAddress?: string;
    routes?: (app: FastifyInstance) => void;
    /** Shorter request timeouts than REQUEST_TIMEOUTS (api/app.ts), for a test of a stalled body. */
    timeouts?: { requestMs: number; headersMs: number };
  } = {},
): Promise<PlumbingApp> {
  const databaseUrl = options.databaseUrl ?? inject('databaseUrl');
  const temporalAddress = options.temporalAddress ?? inject('temporalAddress');
  const config = loadConfig({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, PUBLIC_URL: 'http://127.0.0.1:3999' });
  const orm = await openOrm({ databaseUrl, poolMax: 5 });
  const temporal = createTemporalClient({ address: temporalAddress, namespace: 'default', taskQueue: inject('taskQueue') });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const app = await buildApp({ config, orm, temporal, logger, ...(options.timeouts ? { timeouts: options.timeouts } : {}) });
  options.routes?.(app);
  await app.ready();
  const ip = randomLoopbackIp();
  return {
    app,
    orm,
    temporal,
    logs,
    request: (o) => app.inject({ remoteAddress: ip, ...o }),
    async close() {
      await app.close();
      await temporal.connection.close().catch(() => undefined);
      await orm.close();
    },
  };
}
