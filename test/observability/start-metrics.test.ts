// `npm start` with METRICS_PORT: one page for the whole service (API, worker and the Temporal SDK's series).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeStartFailure } from '../../scripts/start-failure.js';
import { freePort } from '../../config/free-port.js';
import { stopChild } from '../../dev/temporal/dev-server.js';
import { bearer } from '../helpers/app.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually } from '../helpers/receiver.js';
import { parseSamples } from './prometheus.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sc-start-metrics-'));
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let service: ChildProcess;
let stdout = '';
let exited: Promise<number | null>;
const ports = { api: 0, metrics: 0 };

beforeAll(async () => {
  db = await createIsolatedDatabase();
  ports.api = await freePort();
  ports.metrics = await freePort();
  service = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      // Not the suite's namespace: this whole service would take over its housekeeping schedules.
      TEMPORAL_NAMESPACE: 'metrics-test',
      TEMPORAL_TASK_QUEUE: `start-metrics-${randomBytes(3).toString('hex')}`,
      SECRETS_KEY: inject('secretsKey'),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      PORT: String(ports.api),
      METRICS_PORT: String(ports.metrics),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  service.stderr!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  exited = new Promise((done) => service.once('exit', (code) => done(code)));
  await eventually(() => stdout.includes('Ctrl-C stops everything.'), 90_000, `npm start ready:\n${stdout}`);
});

afterAll(async () => {
  if (service && service.exitCode === null) await stopChild(service);
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start with METRICS_PORT', () => {
  it('prints where the page is and serves the API, the worker and the Temporal SDK on it', async () => {
    expect(stdout).toContain(`Metrics:       http://127.0.0.1:${ports.metrics}/metrics`);
    expect(stdout).toContain(`Temporal:      ${inject('temporalAddress')} (namespace metrics-test)`);
    const secret = /secret key:\s+(\S+)/.exec(stdout)![1]!;
    expect((await fetch(`http://127.0.0.1:${ports.api}/api/v1/me`, { headers: bearer(secret) })).status).toBe(200);
    // The worker's SDK exporter starts with its first poll: the page shows it once the worker runs.
    let text = '';
    await eventually(
      async () => {
        text = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
        return /^temporal_num_pollers\{/m.test(text);
      },
      30_000,
      "the Temporal SDK's series on the page",
    );
    const samples = parseSamples(text);
    const has = (name: string, labels: Record<string, string> = {}) =>
      samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(has('store_commerce_http_requests_total', { route: '/api/v1/me', status: '200', key_kind: 'secret', process: 'start' })).toBe(
      true,
    );
    expect(has('store_commerce_outbox_waiting', { process: 'start' })).toBe(true);
    expect(text).toContain('# TYPE store_commerce_webhook_deliveries_total counter');
    expect(text).toContain('# TYPE store_commerce_outbox_handoffs_total counter');
    expect(has('temporal_num_pollers', { process: 'start' })).toBe(true);
    expect(has('process_resident_memory_bytes', { process: 'start' })).toBe(true);
    // Each family is described once: the appended page and ours do not collide.
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });

  it('Ctrl-C stops the page with everything else', async () => {
    service.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).rejects.toThrow();
  });
});

describe('a METRICS_PORT already taken', () => {
  it('ends npm start in one line naming the port and METRICS_PORT', () => {
    const err = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:9464'), { code: 'EADDRINUSE' });
    expect(describeStartFailure(err, { stage: 'metrics', port: 9464 })).toBe(
      'port 9464 on 127.0.0.1 is already in use: stop what listens there, or set METRICS_PORT to a free port',
    );
  });
});
