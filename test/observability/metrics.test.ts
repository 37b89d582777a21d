// METRICS_PORT: the API and the worker as real processes (`start:api` and `start:worker`, each with its own
// page), driven over HTTP, then scraped as Prometheus would.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../config/free-port.js';
import { openOrm } from '../../db/orm.js';
import { stopChild } from '../../dev/temporal/dev-server.js';
import { testEnv } from '../global-setup.js';
import { bearer } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore, type TestStore } from '../helpers/store.js';
import { orderBody } from '../orders/fixtures.js';
import { parseSamples, type Sample } from './prometheus.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const children: ChildProcess[] = [];
const ports = { api: 0, apiMetrics: 0, workerMetrics: 0 };

/** Runs a process entry as production does (node + tsx), its output in the run's log folder. */
function run(entry: string, env: Record<string, string>, log: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, entry)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(resolve(inject('logDir'), log), { flags: 'a' });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  children.push(child);
  return child;
}

const api = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${ports.api}/api/v1${path}`, init);
const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

beforeAll(async () => {
  receiver = await startReceiver();
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 3 });
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  const env = {
    ...testEnv({
      databaseUrl: db.url,
      temporalAddress: inject('temporalAddress'),
      taskQueue: `metrics-test-${randomBytes(3).toString('hex')}`,
      secretsKey: inject('secretsKey'),
    }),
    // A namespace of its own: this worker must not take over the suite's housekeeping schedules.
    TEMPORAL_NAMESPACE: 'metrics-test',
    LOG_LEVEL: 'warn',
  };
  // Mid-rotation of SECRETS_KEY: the API still seals with the suite's key, the worker already has a new one
  // and opens the API's secrets with SECRETS_KEY_PREVIOUS (the delivery below proves it).
  const rotated = { SECRETS_KEY: randomBytes(32).toString('hex'), SECRETS_KEY_PREVIOUS: inject('secretsKey') };
  const worker = run('temporal/worker-main.ts', { ...env, ...rotated, METRICS_PORT: String(ports.workerMetrics) }, 'metrics-worker.log');
  const apiProcess = run('api/server.ts', { ...env, PORT: String(ports.api), METRICS_PORT: String(ports.apiMetrics) }, 'metrics-api.log');
  // Ready when the API answers /readyz on its own port and its metrics page serves, both
  // processes still alive: a page answering alone could be another process's that took a port we chose.
  const answers = (url: string, status: number) =>
    fetch(url).then(
      (r) => r.status === status,
      () => false,
    );
  await eventually(
    async () => {
      for (const [name, child] of [
        ['API', apiProcess],
        ['worker', worker],
      ] as const) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`the ${name} process exited (${child.exitCode ?? child.signalCode}); see its log in ${inject('logDir')}`);
        }
      }
      return (
        (await answers(`http://127.0.0.1:${ports.api}/readyz`, 200)) && (await answers(`http://127.0.0.1:${ports.apiMetrics}/metrics`, 200))
      );
    },
    60_000,
    'the API process listening',
  );
});

afterAll(async () => {
  for (const child of children) await stopChild(child);
  await orm?.close();
  await db?.drop();
  await receiver?.close();
});

const one = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  one(samples, name, labels).reduce((sum, s) => sum + s.value, 0);

describe('the API process serves its own metrics on METRICS_PORT', () => {
  let s: TestStore;
  let samples: Sample[];
  let text: string;
  beforeAll(async () => {
    s = await createTestStore(orm);
    expect((await api('/me', { headers: bearer(s.secret) })).status).toBe(200);
    expect((await api('/no-such-thing', { headers: bearer(s.secret) })).status).toBe(404);
    const created = await api('/orders', {
      method: 'POST',
      headers: { ...bearer(s.secret), 'content-type': 'application/json' },
      body: JSON.stringify(orderBody()),
    });
    expect(created.status).toBe(201);
    const { order } = (await created.json()) as { order: { id: string } };
    expect((await api(`/orders/${order.id}`, { headers: bearer(s.secret) })).status).toBe(200);
    // A free store's secret key allows 60 requests a minute: the 61st of another key is refused.
    const limited = await addKey(orm, s.store.id, { kind: 'secret' });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await api('/me', { headers: bearer(limited.key) })).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await api('/me')).status).toBe(401);
    text = await scrape(ports.apiMetrics);
    samples = parseSamples(text);
  });

  it('counts requests by route pattern, method, status and key kind, never by raw URL', () => {
    const requests = 'store_commerce_http_requests_total';
    expect(value(samples, requests, { route: '/api/v1/me', method: 'GET', status: '200', key_kind: 'secret' })).toBeGreaterThanOrEqual(61);
    expect(value(samples, requests, { route: '/api/v1/orders', method: 'POST', status: '201', key_kind: 'secret' })).toBe(1);
    expect(value(samples, requests, { route: '/api/v1/orders/:id', method: 'GET', status: '200', key_kind: 'secret' })).toBe(1);
    expect(value(samples, requests, { route: '/api/v1/me', status: '401', key_kind: 'none' })).toBe(1);
    // A path no route matched: one label whatever was asked; the key was not checked, so no kind either.
    expect(value(samples, requests, { route: 'unmatched', status: '404', key_kind: 'none' })).toBe(1);
    expect(text).not.toContain('no-such-thing');
    expect(one(samples, requests, {}).every((x) => !/[0-9a-f]{8}-[0-9a-f]{4}/.test(x.labels.route!))).toBe(true);
    // Every series says which process it comes from.
    expect(one(samples, requests, {}).every((x) => x.labels.process === 'api')).toBe(true);
  });

  it('counts 429s by route and key kind, and keeps latency histograms per route', () => {
    expect(value(samples, 'store_commerce_http_rate_limited_total', { route: '/api/v1/me', key_kind: 'secret' })).toBe(1);
    expect(value(samples, 'store_commerce_http_requests_total', { route: '/api/v1/me', status: '429' })).toBe(1);
    expect(text).toContain('# TYPE store_commerce_http_server_errors_total counter');
    const count = value(samples, 'store_commerce_http_request_duration_seconds_count', { route: '/api/v1/me', method: 'GET' });
    expect(count).toBeGreaterThanOrEqual(63);
    expect(value(samples, 'store_commerce_http_request_duration_seconds_bucket', { route: '/api/v1/me', le: '+Inf' })).toBe(count);
    const sum = value(samples, 'store_commerce_http_request_duration_seconds_sum', { route: '/api/v1/me', method: 'GET' });
    expect(sum).toBeGreaterThan(0);
    expect(sum / count).toBeLessThan(1);
  });

  it('says which version and commit it runs, in store_commerce_build_info', () => {
    const { version } = JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    expect(text).toContain('# TYPE store_commerce_build_info gauge');
    expect(one(samples, 'store_commerce_build_info', {})).toEqual([
      { name: 'store_commerce_build_info', labels: { version, commit, process: 'api' }, value: 1 },
    ]);
  });

  it("includes Node's own process metrics", () => {
    expect(value(samples, 'process_resident_memory_bytes', { process: 'api' })).toBeGreaterThan(10_000_000);
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('listens on loopback only, apart from the API, and answers only /metrics', async () => {
    expect((await fetch(`http://127.0.0.1:${ports.apiMetrics}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${ports.api}/metrics`)).status).toBe(404);
    await expect(fetch(`http://127.0.0.2:${ports.apiMetrics}/metrics`)).rejects.toThrow();
  });
});

describe('the worker process serves its own metrics, with the Temporal SDK’s appended', () => {
  let samples: Sample[];
  let text: string;
  beforeAll(async () => {
    const s = await createTestStore(orm);
    const admin = await addKey(orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
    const json = { ...bearer(admin.key), 'content-type': 'application/json' };
    const hook = await api('/webhooks', { method: 'POST', headers: json, body: JSON.stringify({ url: receiver.url('/metrics-hook') }) });
    expect(hook.status).toBe(201);
    const order = await api('/orders', { method: 'POST', headers: json, body: JSON.stringify(orderBody()) });
    expect(order.status).toBe(201);
    await eventually(() => receiver.received.some((r) => r.path === '/metrics-hook'), 60_000, 'the webhook delivery');
    // The shard dispatcher's activity ends after it has been idle for WEBHOOK_DISPATCH_IDLE_MS: then its duration is known.
    await eventually(
      async () =>
        value(parseSamples(await scrape(ports.workerMetrics)), 'store_commerce_activity_duration_seconds_count', {
          activity: 'sendShardDeliveries',
        }) >= 1,
      30_000,
      'the lane activity ended',
    );
    text = await scrape(ports.workerMetrics);
    samples = parseSamples(text);
  });

  it('counts deliveries by outcome and times their POSTs', () => {
    expect(value(samples, 'store_commerce_webhook_deliveries_total', { outcome: 'delivered', process: 'worker' })).toBe(1);
    expect(value(samples, 'store_commerce_webhook_delivery_duration_seconds_count', { outcome: 'delivered' })).toBe(1);
    expect(text).toContain('# TYPE store_commerce_connection_push_updates_total counter');
  });

  it('times activities by type and outcome', () => {
    expect(
      value(samples, 'store_commerce_activity_duration_seconds_count', { activity: 'sendShardDeliveries', outcome: 'completed' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("counts the relay's hand-offs and reads the outbox backlog at scrape time", () => {
    expect(value(samples, 'store_commerce_outbox_handoffs_total', { outcome: 'handed_over' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'store_commerce_outbox_waiting')).toBe(0);
    expect(value(samples, 'store_commerce_outbox_oldest_waiting_age_seconds')).toBe(0);
    expect(value(samples, 'store_commerce_outbox_dead')).toBe(0);
  });

  it('a waiting outbox row shows in the backlog and its age', async () => {
    // A row that waits for a retry time far ahead: the relay leaves it alone, the gauges see it.
    await orm.em.fork().execute(
      `insert into outbox (action, workflow_type, workflow_id, args, search_attributes, created_at, next_attempt_at)
         values ('start', 'nothing', 'metrics-test/waiting', '[]', '{}', now() - interval '90 seconds', now() + interval '1 day')`,
    );
    const after = parseSamples(await scrape(ports.workerMetrics));
    expect(value(after, 'store_commerce_outbox_waiting')).toBe(1);
    expect(value(after, 'store_commerce_outbox_oldest_waiting_age_seconds')).toBeGreaterThanOrEqual(90);
    await orm.em.fork().execute(`delete from outbox where workflow_id = 'metrics-test/waiting'`);
  });

  it("appends the Temporal SDK's own metrics, labelled with the process", () => {
    const temporal = samples.filter((x) => x.name.startsWith('temporal_'));
    expect(temporal.length).toBeGreaterThan(10);
    expect(temporal.every((x) => x.labels.process === 'worker')).toBe(true);
    expect(
      value(samples, 'temporal_activity_execution_latency_seconds_count', { activity_type: 'sendShardDeliveries' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'store_commerce_build_info', { process: 'worker' })).toBe(1);
  });

  it("names the Temporal SDK's series as Prometheus expects: counters end in _total, durations in _seconds", () => {
    const families = (type: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('# TYPE temporal_') && line.endsWith(` ${type}`))
        .map((line) => line.split(' ')[2]!);
    const counters = families('counter');
    expect(counters.length).toBeGreaterThan(3);
    expect(counters.filter((name) => !name.endsWith('_total'))).toEqual([]);
    const durations = families('histogram').filter((name) => /latency|duration/.test(name));
    expect(durations.length).toBeGreaterThan(3);
    expect(durations.filter((name) => !name.endsWith('_seconds'))).toEqual([]);
  });
});
