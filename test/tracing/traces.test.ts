// One order's trace, end to end: the API and a worker run as real processes with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at a loopback OTLP receiver; POST /orders and the webhook POST it causes share one trace id.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workflowIds } from '../../workflows/catalog.js';
import { freePort } from '../../config/free-port.js';
import { openOrm } from '../../db/orm.js';
import { tracingSettings } from '../../observability/tracing.js';
import { stopChild } from '../../dev/temporal/dev-server.js';
import { testEnv } from '../global-setup.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let hooks: Awaited<ReturnType<typeof startReceiver>>;
let baseUrl: string;
const children: ChildProcess[] = [];
/** Each process's output so far (JSON log lines), by name. */
const output: Record<string, string> = {};

/** `node --import tsx <script>` with the test environment plus env, its output in the run's log folder. */
function startProcess(name: string, script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, script)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(inject('logDir'), `tracing-${name}.log`));
  output[name] = '';
  child.stdout!.on('data', (chunk: Buffer) => (output[name] += chunk.toString('utf8')));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  children.push(child);
  return child;
}

beforeAll(async () => {
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 2 });
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...testEnv({
      databaseUrl: db.url,
      temporalAddress: inject('temporalAddress'),
      taskQueue: `${inject('taskQueue')}-tracing`,
      secretsKey: inject('secretsKey'),
    }),
    // Not the suite's namespace: this worker would take over its housekeeping schedules (with its own task queue).
    TEMPORAL_NAMESPACE: 'tracing-test',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=tracing-test,service.namespace=shops',
  };
  startProcess('api', 'api/server.ts', env);
  startProcess('worker', 'temporal/worker-main.ts', env);
  await eventually(
    () =>
      fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
    'the API answering',
  );
});

afterAll(async () => {
  for (const child of children) await stopChild(child);
  await hooks?.close();
  await otlp?.close();
  await orm?.close();
  await db?.drop();
});

const api = (key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A trace id a client makes up and sends in its `traceparent`. */
const CLIENT_TRACE_ID = 'c11e47c11e47c11e47c11e47c11e4700';
const CLIENT_TRACEPARENT = `00-${CLIENT_TRACE_ID}-c11e47c11e47c11e-01`;

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('one trace id covers POST /orders, its SQL, the outbox hand-off, the lane activity and the webhook POST', async () => {
    const s = await createTestStore(orm);
    const { key } = await addKey(orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
    // The receiver's path and query stand for a tenant's capability URL: traces keep only its origin.
    const endpoint = await api(key, '/webhooks', {
      url: hooks.url('/traced/hook-capability?token=hook-secret'),
      events: ['order.created'],
    });
    expect(endpoint.status, await endpoint.clone().text()).toBe(201);

    // The client sends a trace context of its own: it is linked, never followed into the tenant's delivery.
    const created = await api(key, '/orders', { external_id: 'traced-1', totals: { total: 10 } }, { traceparent: CLIENT_TRACEPARENT });
    expect(created.status, await created.clone().text()).toBe(201);
    const requestId = created.headers.get('x-request-id');

    await eventually(() => hooks.received.some((r) => r.path.startsWith('/traced')), 60_000, 'the webhook');
    const hook = hooks.received.find((r) => r.path.startsWith('/traced'))!;
    // The receiver gets the W3C trace context of the POST, in the order's trace.
    const traceparent = String(hook.headers.traceparent ?? '');
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceparent.split('-')[1]!;

    const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId);
    const find = (what: (span: ReceivedSpan) => boolean) => inTrace().find(what);
    const server = () => find((span) => span.name === 'POST /api/v1/orders');
    const handOff = () => find((span) => span.name.startsWith('outbox hand-off'));
    const delivery = () => find((span) => span.name === 'webhook delivery');
    // The outbound POST: the http instrumentation's client span inside the delivery span.
    const outbound = () => find((span) => span.kind === 3 && span.name === 'POST' && span.parentSpanId === delivery()?.spanId);
    // The stable database conventions (OTEL_SEMCONV_STABILITY_OPT_IN=database): db.system.name, not db.system.
    const sql = () => find((span) => span.service === 'store-commerce-api' && span.attributes['db.system.name'] === 'postgresql');
    await eventually(() => Boolean(server() && handOff() && delivery() && outbound() && sql()), 20_000, 'the spans of the order').catch(
      (err: Error) => {
        const seen = otlp.spans.map(
          (x) => `${x.traceId === traceId ? '*' : ' '} ${x.service} ${x.kind} ${x.name} ${x.traceId.slice(0, 6)}`,
        );
        throw new Error(`${err.message}; spans received:\n${seen.join('\n')}`);
      },
    );

    // Custom attributes carry our own prefix, never OpenTelemetry's namespaces.
    expect(server()!.attributes['store_commerce.request_id']).toBe(requestId);
    expect(server()!.attributes['http.request_id']).toBeUndefined();
    expect(server()!.kind).toBe(2); // SERVER
    // The stable HTTP conventions (OTEL_SEMCONV_STABILITY_OPT_IN=http): http.request.method, url.path, not http.method.
    expect(server()!.attributes['http.request.method']).toBe('POST');
    expect(server()!.attributes['url.path']).toBe('/api/v1/orders');
    expect(server()!.attributes['http.response.status_code']).toBe(201);
    expect(server()!.attributes['http.method']).toBeUndefined();
    expect(sql()!.attributes['db.system']).toBeUndefined();
    expect(sql()!.attributes['db.query.text']).toEqual(expect.any(String));
    expect(sql()!.attributes['db.statement']).toBeUndefined();
    // The client's traceparent started nothing: the order's trace is a new root, linked to the client's.
    expect(traceId).not.toBe(CLIENT_TRACE_ID);
    expect(server()!.parentSpanId).toBe('');
    expect(server()!.links).toEqual([{ traceId: CLIENT_TRACE_ID, spanId: 'c11e47c11e47c11e' }]);
    expect(JSON.stringify(hook.headers)).not.toContain(CLIENT_TRACE_ID);
    // The resource: the service's version, an instance id per process, and OTEL_RESOURCE_ATTRIBUTES.
    const { version } = JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(server()!.resource).toMatchObject({
      'service.name': 'store-commerce-api',
      'service.version': version,
      'deployment.environment.name': 'tracing-test',
      'service.namespace': 'shops',
    });
    expect(server()!.resource['service.instance.id']).toMatch(/^[0-9a-f-]{36}$/);
    // The API's log line of this request carries the trace id.
    const lines = output.api!.split('\n').filter((line) => line.includes(requestId!));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => (JSON.parse(line) as { trace_id?: string }).trace_id === traceId)).toBe(true);
    expect(handOff()!.service).toBe('store-commerce-worker');
    expect(handOff()!.attributes['store_commerce.temporal.workflow_id']).toBe(workflowIds.storeWebhookDispatch(s.store.id));
    expect(handOff()!.resource['service.instance.id']).not.toBe(server()!.resource['service.instance.id']);
    // The relay's start of the lane goes through Temporal's client interceptor, in the same trace.
    expect(find((span) => span.name.startsWith('SignalWithStartWorkflow'))?.parentSpanId).toBe(handOff()!.spanId);
    // This order's hand-off started the store's lane, so the lane's workflow and its activity run (the SDK's
    // interceptors: RunWorkflow, StartActivity, RunActivity) are in its trace too; the delivery span links to
    // the activity run, which ends (and is exported) after its linger time.
    const link = delivery()!.links[0];
    expect(link, 'a link to the lane run').toBeDefined();
    const runActivity = () => find((span) => span.name === 'RunActivity:sendShardDeliveries');
    await eventually(() => Boolean(runActivity()), 20_000, 'the activity span');
    expect(runActivity()!.spanId).toBe(link!.spanId);
    // The workflow schedules the activity (StartActivity, from inside the sandbox through the exporter sink);
    // the lane's RunWorkflow span ends only when the lane does, after a long idle time.
    const startActivity = () => find((span) => span.name === 'StartActivity:sendShardDeliveries');
    await eventually(() => Boolean(startActivity()), 20_000, 'the workflow span');
    expect(startActivity()!.spanId).toBe(runActivity()!.parentSpanId);
    expect(startActivity()!.service).toBe('store-commerce-worker');
    expect(delivery()!.attributes['store_commerce.webhook.event_type']).toBe('order.created');
    expect(outbound()!.parentSpanId).toBe(delivery()!.spanId);
    // The tenant's URL is recorded as its origin: its path and query may be a capability.
    expect(outbound()!.attributes['url.full']).toBe(`${new URL(hooks.url()).origin}/[redacted]`);
    expect(JSON.stringify(outbound()!.attributes)).not.toMatch(/hook-capability|hook-secret/);
    expect(traceparent.split('-')[2]).toBe(outbound()!.spanId);
  });
});

describe('what traces never record', () => {
  it('a query string, a cart token, a tracking page id or a key in a path', async () => {
    const secrets = ['contact-0611223344', 'cart-token-7f3a9b', 'ord_capability42', `svc_live_sk_${'ab'.repeat(20)}`];
    const paths = [
      `/api/v1/tracking?order=ord_1&contact=${secrets[0]}`,
      `/s/some-store/cart/${secrets[1]}?from=${secrets[0]}`,
      `/track/${secrets[2]}`,
      `/api/v1/${secrets[3]}/orders`,
    ];
    for (const path of paths) await fetch(`${baseUrl}${path}`).then((r) => r.arrayBuffer());
    const seen = () =>
      otlp.spans.filter(
        (span) =>
          span.service === 'store-commerce-api' &&
          span.kind === 2 &&
          /tracking|\/cart\/|\/track\/|redacted/.test(String(span.attributes['url.path'])),
      );
    await eventually(() => seen().length >= paths.length, 20_000, 'the server spans of the four requests');
    const recorded = JSON.stringify(otlp.spans.filter((span) => span.service === 'store-commerce-api'));
    for (const secret of secrets) expect(recorded).not.toContain(secret);
    expect(recorded).toContain('/track/[redacted]');
    expect(recorded).toContain('/cart/[redacted]');
  });
});

describe('tracing without an endpoint', () => {
  // A separate process, so what it loads is what the service would load.
  const probe = (env: Record<string, string>) => {
    const script = `
      import { createRequire } from 'node:module';
      import { startTracing, tracingActive } from './observability/tracing.ts';
      const handle = await startTracing(process.env, 'api');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /@opentelemetry[\\/\\\\](sdk-|exporter-|instrumentation)/.test(f));
      console.log(JSON.stringify({ started: handle !== null, active: tracingActive(), sdkModules: loaded.length }));
      await handle?.shutdown();`;
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      env: { ...clean, ...env },
      encoding: 'utf8',
    });
    expect(out.status, out.stderr).toBe(0);
    return JSON.parse(out.stdout.trim().split('\n').pop()!) as { started: boolean; active: boolean; sdkModules: number };
  };

  it('loads no SDK, exporter or instrumentation', () => {
    expect(probe({})).toEqual({ started: false, active: false, sdkModules: 0 });
  });

  it('loads them when an endpoint is set (the probe above can see them)', () => {
    const on = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.started).toBe(true);
    expect(on.sdkModules).toBeGreaterThan(0);
  });

  it('OTEL_SDK_DISABLED=true keeps it off even with an endpoint', () => {
    expect(probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' })).toEqual({
      started: false,
      active: false,
      sdkModules: 0,
    });
  });
});

describe('tracing settings', () => {
  it('an endpoint turns it on, named by role unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(tracingSettings({}, 'api')).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, 'worker')).toEqual({
      endpoint: 'http://127.0.0.1:4318',
      serviceName: 'store-commerce-worker',
      serviceNamed: false,
      semconvOptIn: 'http,database',
    });
    expect(
      tracingSettings(
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
          OTEL_SERVICE_NAME: 'shop',
          OTEL_SEMCONV_STABILITY_OPT_IN: 'http/dup',
        },
        'api',
      ),
    ).toEqual({ endpoint: 'http://c:4318/v1/traces', serviceName: 'shop', serviceNamed: true, semconvOptIn: 'http/dup' });
  });

  it('a bad endpoint or the gRPC protocol is refused with the variable named', () => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' }, 'api')).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'api')).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/json/,
    );
  });
});
