// Chaos: PostgreSQL stops and starts again while orders are being written. While it is down every
// answer is a quick 503 unavailable in the error envelope (never a 500, nothing hangs); afterwards
// every order that was answered with a 2xx is there.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { loadConfig } from '../../config/env.js';
import { createLogger } from '../../observability/logger.js';
import { freePort } from '../../config/free-port.js';
import { startEmbeddedPostgres, type LocalPostgres } from '../../dev/db/embedded.js';
import { migrate, openOrm } from '../../db/orm.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';
import { bearer, randomLoopbackIp, testResolver } from '../helpers/app.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { log, sleep, waitUntil } from './harness.js';

const LOOPERS = 4;
/** Longer than any answer may take: a request still open after this has hung. */
const HANG_MS = 10_000;

let dir: string;
let port: number;
let pg: LocalPostgres | undefined;
let orm: MikroORM;
let app: FastifyInstance;
let temporal: TemporalHandle;

beforeAll(async () => {
  // PostgreSQL runs as its own system user when we are root: it must be able to reach the data folder.
  const parent = mkdtempSync(join(tmpdir(), 'sc-chaos-pg-'));
  chmodSync(parent, 0o755);
  dir = join(parent, 'data');
  port = await freePort();
  pg = await startEmbeddedPostgres(dir, { port });
  orm = await openOrm({ databaseUrl: pg.url, poolMax: 5 });
  await migrate(pg.url);
  const config = loadConfig({
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // No worker polls this queue: the outbox rows simply wait; this test is about the API and PostgreSQL.
    TEMPORAL_TASK_QUEUE: 'chaos-postgres-no-worker',
    PUBLIC_URL: 'http://127.0.0.1:3999',
    SECRETS_KEY: inject('secretsKey'),
  });
  temporal = createTemporalClient({ address: inject('temporalAddress'), namespace: 'default', taskQueue: 'chaos-postgres-no-worker' });
  app = await buildApp({ config, orm, temporal, logger: createLogger('fatal'), resolve: testResolver });
  await app.ready();
}, 300_000);

afterAll(async () => {
  // Each step bounded, and named in the output if it is slow: a hang here is a finding too.
  const step = async (name: string, run: () => Promise<unknown> | undefined) => {
    const started = Date.now();
    const done = await Promise.race([
      Promise.resolve(run()).then(
        () => true,
        () => true,
      ),
      sleep(20_000).then(() => false),
    ]);
    if (!done || Date.now() - started > 5000) log(`teardown: ${name} took ${done ? Date.now() - started : 'more than 20000'} ms`);
  };
  await step('app.close', () => app?.close());
  await step('temporal close', () => temporal?.connection.close());
  await step('orm.close', () => orm?.close());
  await step('PostgreSQL stop', () => pg?.stop());
  rmSync(join(dir, '..'), { recursive: true, force: true });
}, 120_000);

type Phase = 'up' | 'down' | 'back';
interface Answer {
  phase: Phase;
  status: number;
  ms: number;
  res: LightMyRequestResponse | null;
}

describe('PostgreSQL restarted under load', () => {
  it('answers 503 unavailable while it is down, never a 500 and never slowly, and keeps every order it confirmed', async () => {
    const s = await createTestStore(orm, { plan: 'paid' });
    // Fresh keys, so the paid limit (300 a minute per key) is never what answers.
    const keys = await Promise.all(Array.from({ length: LOOPERS }, async () => (await addKey(orm, s.store.id, { kind: 'secret' })).key));
    let phase: Phase = 'up';
    let running = true;
    const answers: Answer[] = [];
    let n = 0;
    const looper = async (key: string) => {
      const ip = randomLoopbackIp();
      while (running) {
        const at = phase;
        const started = Date.now();
        const timeout = new Promise<null>((done) => setTimeout(() => done(null), HANG_MS).unref());
        const res = await Promise.race([
          app.inject({
            method: 'POST',
            url: '/api/v1/orders',
            remoteAddress: ip,
            headers: bearer(key),
            payload: { external_id: `pg-${n++}`, totals: { total: 1 + (n % 50) } },
          }),
          timeout,
        ]);
        answers.push({ phase: at, status: res?.statusCode ?? 0, ms: Date.now() - started, res });
        // About 8 writes a second per looper: well inside a paid key's 300 a minute.
        await sleep(100);
      }
    };
    const loops = keys.map(looper);

    await sleep(3000);
    phase = 'down';
    const stopping = Date.now();
    await pg!.stop();
    pg = undefined;
    log(`PostgreSQL stopped in ${Date.now() - stopping} ms under load`);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    await sleep(5000);
    const restarting = Date.now();
    pg = await startEmbeddedPostgres(dir, { port });
    phase = 'back';
    log(`PostgreSQL started again in ${Date.now() - restarting} ms`);
    await sleep(5000);
    running = false;
    await Promise.all(loops);

    const summary = (p: Phase) => {
      const list = answers.filter((a) => a.phase === p);
      const byStatus = list.reduce<Record<number, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {});
      return `${p}: ${list.length} answers ${JSON.stringify(byStatus)}, slowest ${Math.max(0, ...list.map((a) => a.ms))} ms`;
    };
    log(['up', 'down', 'back'].map((p) => summary(p as Phase)).join('; '));

    expect(ready.statusCode).toBe(503);
    // Nothing hung, and nothing but 2xx or 503.
    expect(answers.filter((a) => a.status === 0).length, 'requests with no answer within 10 s').toBe(0);
    expect(
      answers.filter((a) => ![200, 201, 503].includes(a.status)).map((a) => `${a.phase} ${a.status} ${a.res?.body.slice(0, 200)}`),
    ).toEqual([]);
    // Every 503 is the envelope with code unavailable and a Retry-After.
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.res!.json().error).toMatchObject({ code: 'unavailable', request_id: a.res!.headers['x-request-id'] });
      expect(a.res!.headers['retry-after']).toMatch(/^\d+$/);
    }
    // The phases did what they say: writes before, 503s while down, writes again after.
    expect(answers.filter((a) => a.phase === 'up' && a.status === 201).length).toBeGreaterThan(0);
    const down = answers.filter((a) => a.phase === 'down');
    expect(down.filter((a) => a.status === 503).length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.phase === 'back' && a.status === 201).length).toBeGreaterThan(0);

    // Every order confirmed with a 2xx is there.
    const confirmed = answers.filter((a) => a.status === 200 || a.status === 201).map((a) => a.res!.json().order.id as string);
    const missing: string[] = [];
    let reader = '';
    for (const [i, id] of confirmed.entries()) {
      if (i % 250 === 0) reader = (await addKey(orm, s.store.id, { kind: 'secret' })).key;
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/orders/${id}`,
        remoteAddress: randomLoopbackIp(),
        headers: bearer(reader),
      });
      if (res.statusCode !== 200) missing.push(`${id}: ${res.statusCode}`);
    }
    expect(missing).toEqual([]);
    log(`${confirmed.length} confirmed orders all present after the restart`);
  }, 300_000);
});

/** The PostgreSQL server processes of our data folder: the postmaster (from postmaster.pid) and its children. */
function serverProcesses(): number[] {
  const postmaster = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

describe('PostgreSQL frozen (it accepts nothing and answers nothing, as in a network partition)', () => {
  // db/orm.ts gives the pool a 5 s connect timeout and an 8 s query timeout: a frozen PostgreSQL is a 503.
  it('answers within a few seconds, 503 unavailable, and recovers when PostgreSQL does', async () => {
    const s = await createTestStore(orm, { plan: 'paid' });
    const key = (await addKey(orm, s.store.id, { kind: 'secret' })).key;
    const processes = serverProcesses();
    for (const pid of processes) process.kill(pid, 'SIGSTOP');
    const answers: { status: number; ms: number }[] = [];
    try {
      await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const started = Date.now();
          const res = await Promise.race([
            app.inject({
              method: 'POST',
              url: '/api/v1/orders',
              remoteAddress: randomLoopbackIp(),
              headers: bearer(key),
              payload: { external_id: `frozen-${i}`, totals: { total: 1 } },
            }),
            sleep(HANG_MS).then(() => null),
          ]);
          answers.push({ status: res?.statusCode ?? 0, ms: Date.now() - started });
        }),
      );
    } finally {
      for (const pid of processes) process.kill(pid, 'SIGCONT');
    }
    log(`frozen PostgreSQL (status 0: no answer within ${HANG_MS} ms): ${JSON.stringify(answers)}`);
    // Once PostgreSQL runs again, writes succeed again.
    await waitUntil(
      async () =>
        (
          await app.inject({
            method: 'POST',
            url: '/api/v1/orders',
            remoteAddress: randomLoopbackIp(),
            headers: bearer(key),
            payload: { external_id: 'thawed', totals: { total: 1 } },
          })
        ).statusCode < 300,
      30_000,
      'a write after PostgreSQL thawed',
    );
    expect(answers.filter((a) => a.status === 0).length, `requests with no answer within ${HANG_MS} ms`).toBe(0);
    expect(answers.every((a) => a.status === 503)).toBe(true);
  }, 120_000);
});
