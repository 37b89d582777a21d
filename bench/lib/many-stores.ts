// The many-store webhook day (issue 22): stores, keys and endpoints written in bulk, loopback receivers
// that answer in 20–80 ms (or never), verify both signatures and count each (order, endpoint) once, a
// Poisson order load through the HTTP API, and the counts read from Temporal and the worker's metrics.
// Black-box: nothing here knows how the service delivers (lanes, dispatchers), only what it sends.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { displayPrefix, generateKey, hashKey } from '../../domain/api-keys.js';
import { DEFAULT_SECRET_SCOPES } from '../../domain/scopes.js';
import { sealSecret } from '../../domain/secret-box.js';
import { generateWebhookSecret } from '../../domain/webhook-signature.js';
import { measureCpu, type CpuGroups } from './cpu.js';
import { orderInput, seededRandom } from './order-bodies.js';
import { fmt } from './stats.js';
import type { TestTls } from './tls.js';

export const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How an endpoint's receiver behaves: answers 200 after 20–80 ms, or accepts the request and never answers. */
export type EndpointMode = 'ok' | 'hang';

export interface DayEndpoint {
  id: string;
  secret: string;
  mode: EndpointMode;
}

export interface DayStore {
  id: string;
  keys: string[];
  endpoints: DayEndpoint[];
}

/** The p-th percentile (nearest rank) of values; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Loopback receivers in the harness, one server (HTTP or HTTPS with the run's test certificate) with a path
 * per endpoint. Each delivery's arrival time is kept by (order id, endpoint id); a second arrival of a pair is
 * a duplicate, and a delivery whose X-Service-Signature or Standard Webhooks signature does not verify is
 * counted as bad: both fail the run (assertClean).
 */
export class DayReceivers {
  private server?: Server;
  private readonly endpoints = new Map<string, DayEndpoint>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();
  private readonly random = seededRandom(22);
  /** `${orderId} ${endpointId}` → arrival time (performance.now()). */
  arrivals = new Map<string, number>();
  duplicates = 0;
  badSignatures = 0;
  hangs = 0;
  base = '';

  constructor(private readonly tls?: TestTls) {}

  async start(): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    const server = this.tls ? createHttpsServer({ key: this.tls.key, cert: this.tls.cert }, handler) : createHttpServer(handler);
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s: Socket) => (this.sockets.add(s), s.once('close', () => this.sockets.delete(s))));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    this.server = server;
    const port = (server.address() as { port: number }).port;
    // https://localhost: the certificate names localhost; the sender pins the address it checked (127.0.0.1).
    this.base = this.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  }

  url(endpoint: DayEndpoint): string {
    this.endpoints.set(endpoint.id, endpoint);
    return `${this.base}/e/${endpoint.id}`;
  }

  reset(): void {
    this.arrivals = new Map();
    this.duplicates = 0;
    this.badSignatures = 0;
    this.hangs = 0;
  }

  get count(): number {
    return this.arrivals.size;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const t = now();
      const endpoint = this.endpoints.get((req.url ?? '').split('/')[2] ?? '');
      if (!endpoint) return void res.writeHead(404).end();
      if (endpoint.mode === 'hang') {
        // Accepted and never answered: the sender's timeout is the only way out.
        this.hangs++;
        this.hanging.add(res);
        res.once('close', () => this.hanging.delete(res));
        return;
      }
      const raw = Buffer.concat(chunks);
      if (!verifiedDelivery(endpoint.secret, req.headers, raw)) this.badSignatures++;
      try {
        const id = (JSON.parse(raw.toString('utf8')) as { data?: { order?: { id?: string } } }).data?.order?.id;
        if (id) {
          const key = `${id} ${endpoint.id}`;
          if (this.arrivals.has(key)) this.duplicates++;
          else this.arrivals.set(key, t);
        }
      } catch {
        this.badSignatures++;
      }
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), 20 + this.random() * 60);
    });
  }

  async waitFor(total: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.count < total && Date.now() < deadline) await sleep(100);
    return this.count >= total;
  }

  /** Throws when a pair arrived twice or a signature did not verify: the run is not valid. */
  assertClean(what: string): void {
    if (this.duplicates || this.badSignatures)
      throw new Error(
        `${what}: ${this.duplicates} duplicate deliveries and ${this.badSignatures} with a bad signature reached the receivers`,
      );
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }
}

/** Both signatures of a delivery: X-Service-Signature (hex HMAC of the body) and Standard Webhooks v1 (id.timestamp.body). */
export function verifiedDelivery(secret: string, headers: IncomingMessage['headers'], raw: Buffer): boolean {
  const service = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  const offered = String(headers['webhook-signature'] ?? '').split(' ');
  return headers['x-service-signature'] === service && Boolean(id && ts) && offered.includes(standardSignature(secret, id, ts, raw));
}

/** Standard Webhooks v1: base64 HMAC-SHA256 of `id.timestamp.body` keyed with the decoded whsec_ secret. */
export function standardSignature(secret: string, id: string, ts: string | number, raw: Buffer | string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.`).update(raw).digest('base64')}`;
}

/**
 * Writes `count` paid, published stores with `keysPerStore` secret keys each and their webhook endpoints
 * (order.created; secrets sealed with the run's SECRETS_KEY, as the API seals them) in three statements:
 * seeding 2,000 stores through 2,000 sign-ups would take longer than the measurement.
 */
export async function seedDayStores(
  pool: pg.Pool,
  secretsKey: Buffer,
  receivers: DayReceivers,
  opts: { count: number; keysPerStore: number; endpoints: (i: number) => EndpointMode[]; label: string },
): Promise<DayStore[]> {
  const stores: DayStore[] = Array.from({ length: opts.count }, (_, i) => ({
    id: randomUUID(),
    keys: Array.from({ length: opts.keysPerStore }, () => generateKey('secret')),
    endpoints: opts.endpoints(i).map((mode) => ({ id: randomUUID(), secret: generateWebhookSecret(), mode })),
  }));
  const tag = `${opts.label}-${Date.now().toString(36)}`;
  await pool.query(
    `insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee)
     select id, 'Bench ' || $2 || ' ' || n, 'bench-' || $2 || '-' || n, 'USD', 'full', 'paid', true, 0
     from unnest($1::uuid[]) with ordinality as t(id, n)`,
    [stores.map((s) => s.id), tag],
  );
  const keys = stores.flatMap((s) => s.keys.map((k) => [s.id, hashKey(k), displayPrefix(k)] as const));
  await pool.query(
    `insert into api_keys (id, store_id, kind, key_hash, prefix, scopes, origins, label)
     select gen_random_uuid(), s, 'secret', h, p, $4::text[] || array['webhooks:write'], '{}', 'bench'
     from unnest($1::uuid[], $2::text[], $3::text[]) as t(s, h, p)`,
    [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2]), DEFAULT_SECRET_SCOPES],
  );
  const endpoints = stores.flatMap((s) =>
    s.endpoints.map((e) => [e.id, s.id, receivers.url(e), sealSecret(secretsKey, e.secret)] as const),
  );
  await pool.query(
    `insert into webhook_endpoints (id, store_id, url, events, secret_sealed)
     select id, s, u, '{order.created}', x from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) as t(id, s, u, x)`,
    [endpoints.map((e) => e[0]), endpoints.map((e) => e[1]), endpoints.map((e) => e[2]), endpoints.map((e) => e[3])],
  );
  await pool.query('analyze stores; analyze api_keys; analyze webhook_endpoints');
  return stores;
}

/** One order accepted by the API: when it was sent and answered, and which store it belongs to. */
export interface Committed {
  store: DayStore;
  sent: number;
  answered: number;
}

/** POSTs orders through the HTTP API; returns the committed ones by order id and the failures. */
export class OrderSender {
  readonly committed = new Map<string, Committed>();
  failed = 0;
  firstError = '';
  private readonly inflight = new Set<Promise<void>>();
  private n = 0;
  private readonly keyTurn = new Map<string, number>();

  constructor(
    private readonly apiUrl: string,
    private readonly tag: string,
  ) {}

  /** Starts one order for the store (not awaited: an open-loop load never waits for answers). */
  post(store: DayStore): void {
    const turn = this.keyTurn.get(store.id) ?? 0;
    this.keyTurn.set(store.id, turn + 1);
    const key = store.keys[turn % store.keys.length]!;
    const externalId = `${this.tag}-${++this.n}`;
    const p = (async () => {
      const sent = now();
      try {
        const r = await fetch(`${this.apiUrl}/api/v1/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(orderInput(externalId, 3, null)),
        });
        const answered = now();
        const body = (await r.json()) as { order?: { id?: string } };
        if (r.status === 201 && body.order?.id) this.committed.set(body.order.id, { store, sent, answered });
        else {
          this.failed++;
          this.firstError ||= `HTTP ${r.status} ${JSON.stringify(body).slice(0, 200)}`;
        }
      } catch (err) {
        this.failed++;
        this.firstError ||= (err as Error).message;
      }
    })();
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  async settled(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }

  /** Deliveries the receivers should get for the committed orders (answering endpoints only), optionally of some stores only. */
  expected(filter: (s: DayStore) => boolean = () => true): number {
    let n = 0;
    for (const c of this.committed.values()) if (filter(c.store)) n += c.store.endpoints.filter((e) => e.mode === 'ok').length;
    return n;
  }
}

/**
 * Orders as a Poisson process: `rate` orders/s in all for `seconds`, each to a store picked uniformly (the
 * sum of one Poisson process per store). Seeded, so every run offers the same sequence.
 */
export async function poissonLoad(sender: OrderSender, stores: DayStore[], rate: number, seconds: number, seed: number): Promise<number> {
  const random = seededRandom(seed);
  const started = now();
  let due = started;
  let offered = 0;
  const end = started + seconds * 1000;
  for (;;) {
    due += (-Math.log(1 - random()) / rate) * 1000;
    if (due >= end) break;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    sender.post(stores[Math.floor(random() * stores.length)]!);
    offered++;
  }
  await sleep(Math.max(0, end - now()));
  return offered;
}

/** Latencies of the arrivals of committed orders: response → receipt (and send → receipt, an upper bound of commit → receipt). */
export function latencies(receivers: DayReceivers, sender: OrderSender, filter: (s: DayStore) => boolean = () => true) {
  const fromResponse: number[] = [];
  const fromSend: number[] = [];
  /** When each order was answered (same index as fromResponse), to tell when the slow ones happened. */
  const answeredAt: number[] = [];
  for (const [key, t] of receivers.arrivals) {
    const c = sender.committed.get(key.slice(0, key.indexOf(' ')));
    if (!c || !filter(c.store)) continue;
    fromResponse.push(t - c.answered);
    fromSend.push(t - c.sent);
    answeredAt.push(c.answered);
  }
  return { fromResponse, fromSend, answeredAt };
}

/**
 * When the slowest 1 % of deliveries had their orders answered, in seconds from `start`: a slow tail bunched
 * at the phase's start is a cold path (a dispatcher's first wake-up), one spread over the phase is not.
 */
export function slowestText(latencies: number[], answeredAt: number[], start: number): string {
  const order = latencies.map((_, i) => i).sort((a, b) => latencies[b]! - latencies[a]!);
  const slow = order.slice(0, Math.max(1, Math.ceil(latencies.length / 100)));
  if (!latencies.length) return 'no deliveries';
  const at = slow.map((i) => (answeredAt[i]! - start) / 1000).sort((a, b) => a - b);
  return `the slowest 1 % (${slow.length}, ≥ ${fmt(latencies[slow[slow.length - 1]!]!)} ms) had their orders answered ${fmt(at[0]!)}–${fmt(at[at.length - 1]!)} s into the phase (median ${fmt(at[Math.floor(at.length / 2)]!)} s)`;
}

/** "p50 … p99 … p99.9 … max … ms" of a list of latencies. */
export function latencyText(values: number[]): string {
  return `p50 ${fmt(percentile(values, 50))}, p99 ${fmt(percentile(values, 99))}, p99.9 ${fmt(percentile(values, 99.9))}, max ${fmt(percentile(values, 100))} ms (${values.length} deliveries)`;
}

/** The fewest one-second windows an idle measurement takes: with fewer, the busiest fifth is none of them. */
export const MIN_IDLE_WINDOWS = 5;

/**
 * Each process group's idle CPU in ms per second, with nothing offered: `seconds` windows of one second
 * (at least MIN_IDLE_WINDOWS), the busiest fifth of them left out, the rest averaged (calmIdle). One garbage
 * collection or a lane's end caught in a single window of 5 s once read as a worker idling at 62 ms/s (12 in
 * the next run), and subtracting that over a 60 s phase took 1.4 ms off each delivery. Leaving the busiest
 * windows out can only make the idle smaller, so the CPU charged to the load larger: the error goes against us.
 */
export async function idleCpu(groups: CpuGroups, seconds: number): Promise<Record<string, number>> {
  const windows: Record<string, number>[] = [];
  for (let i = 0; i < Math.max(MIN_IDLE_WINDOWS, Math.round(seconds)); i++)
    windows.push((await measureCpu(groups, () => sleep(1000))).cpuMs);
  return calmIdle(windows);
}

/**
 * The idle rate of each group from its windows (ms of CPU in each second): the busiest fifth left out, at
 * least one window once there are two, and the rest averaged. Quick runs measured 3 windows, of which a
 * fifth is none: a worker's 10 / 60 / 10 read as 26.7 ms/s in one run and a single busy window as 130 ms/s
 * in another, which took the worker's whole share off each delivery of the tail (worker 0 ms).
 */
export function calmIdle(windows: Record<string, number>[]): Record<string, number> {
  const leftOut = windows.length > 1 ? Math.max(1, Math.floor(windows.length / 5)) : 0;
  const kept = windows.length - leftOut;
  return Object.fromEntries(
    Object.keys(windows[0] ?? {}).map((k) => {
      const calmest = windows
        .map((w) => w[k] ?? 0)
        .sort((a, b) => a - b)
        .slice(0, kept);
      return [k, calmest.reduce((a, b) => a + b, 0) / kept];
    }),
  );
}

/** CPU per delivery with each group's idle (ms/s × the phase's seconds) subtracted, as a total and a text by group. */
export function cpuPerDelivery(cpuMs: Record<string, number>, idlePerSec: Record<string, number>, seconds: number, deliveries: number) {
  const parts = Object.entries(cpuMs).map(
    ([name, ms]) => [name, Math.max(0, ms - (idlePerSec[name] ?? 0) * seconds) / Math.max(1, deliveries)] as const,
  );
  const total = parts.reduce((a, [, v]) => a + v, 0);
  const idle = Object.entries(idlePerSec)
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
  return {
    total,
    text: `${parts.map(([n, v]) => `${n} ${fmt(v)}`).join(' + ')} = ${fmt(total)} ms per delivery (idle subtracted; idle ms of CPU per second: ${idle})`,
  };
}

/** Samples the worker's activity slots in use (Temporal SDK metrics) and Temporal's open workflows while a phase runs. */
export class ActivitySampler {
  peakSlots = Number.NaN;
  peakOpen = 0;
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly metricsUrl: () => string | undefined,
    private readonly temporal: Client,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), 1000);
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const url = this.metricsUrl();
      if (url) {
        const text = await fetch(url, { signal: AbortSignal.timeout(900) }).then((r) => r.text());
        for (const line of text.split('\n'))
          if (/^temporal_worker_task_slots_used\{[^}]*worker_type="ActivityWorker"/.test(line)) {
            const v = Number(line.slice(line.lastIndexOf(' ') + 1));
            this.peakSlots = Number.isNaN(this.peakSlots) ? v : Math.max(this.peakSlots, v);
          }
      }
      const { count } = await this.temporal.workflow.count('ExecutionStatus="Running"');
      this.peakOpen = Math.max(this.peakOpen, count);
    } catch {
      // a missed sample: the next one counts
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sample();
  }

  text(): string {
    return `peak activity slots in use ${Number.isNaN(this.peakSlots) ? 'unknown (no worker metrics)' : fmt(this.peakSlots)}, peak open workflows ${this.peakOpen}`;
  }
}

/** History lengths of the runs open now, by run id (a snapshot before a phase). */
export async function openHistories(temporal: Client): Promise<Map<string, number>> {
  const runs: { workflowId: string; runId: string }[] = [];
  for await (const run of temporal.workflow.list({ query: 'ExecutionStatus="Running"' })) runs.push(run);
  return describeAll(temporal, runs);
}

async function describeAll(temporal: Client, runs: { workflowId: string; runId: string }[]): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  for (let i = 0; i < runs.length; i += 16)
    await Promise.all(
      runs.slice(i, i + 16).map(async (r) => {
        const d = await temporal.workflow
          .getHandle(r.workflowId, r.runId)
          .describe()
          .catch(() => null);
        if (d) lengths.set(r.runId, d.historyLength);
      }),
    );
  return lengths;
}

/**
 * Temporal history events written since `since` (an ISO time) by every workflow run that was open then or
 * ran after: closed runs' lengths from the visibility list, open ones described, minus what each had at the
 * `before` snapshot. Counts every workflow type, so it holds for whatever design delivers.
 */
export async function historyEventsSince(
  temporal: Client,
  since: string,
  before: Map<string, number>,
): Promise<{ events: number; runs: number }> {
  let events = 0;
  let runs = 0;
  const open: { workflowId: string; runId: string }[] = [];
  for await (const run of temporal.workflow.list({ query: `ExecutionStatus="Running" OR CloseTime >= "${since}"` })) {
    runs++;
    if (run.status.name === 'RUNNING') open.push(run);
    else events += (run.historyLength ?? 0) - (before.get(run.runId) ?? 0);
  }
  for (const [runId, length] of await describeAll(temporal, open)) events += length - (before.get(runId) ?? 0);
  return { events, runs };
}
