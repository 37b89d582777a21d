// An open-loop load generator: requests start at a fixed rate whatever the answers do, and each latency
// is measured from the time the request was due, not from when it could be sent. A closed loop (autocannon
// with N connections) sends less while the server is slow and so hides the slowness it causes
// (coordinated omission); here a slow server shows as queueing in every later request's latency.
import http from 'node:http';
import { percentile } from './many-stores.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request of the load: what to send and the status that counts as success. */
export interface OpenRequest {
  kind: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Any of these statuses is a success (e.g. [200, 201] for an upsert). */
  ok: readonly number[];
}

export interface StepResult {
  rate: number;
  seconds: number;
  sent: number;
  /** Due time → end of the response body, ms, of every answered request. */
  latencies: number[];
  /** When each of those requests was due, ms from the step's start (same index as latencies). */
  dueAt: number[];
  byKind: Record<string, { latencies: number[]; errors: number }>;
  /** Unexpected statuses, connection errors and requests still unanswered `graceMs` after the step. */
  errors: number;
  firstError: string;
  /** Requests the harness started more than 10 ms after they were due (its own lateness; still counted from the due time). */
  lateStarts: number;
}

/**
 * Offers `rate` requests per second for `seconds`, the i-th due at start + i / rate, each built by `next`.
 * Connections are kept alive and unbounded in number (a request never waits for a free one in the harness).
 */
export async function openLoopStep(opts: {
  url: string;
  rate: number;
  seconds: number;
  next: () => OpenRequest;
  graceMs?: number;
}): Promise<StepResult> {
  const base = new URL(opts.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 10_000 });
  const result: StepResult = {
    rate: opts.rate,
    seconds: opts.seconds,
    sent: 0,
    latencies: [],
    dueAt: [],
    byKind: {},
    errors: 0,
    firstError: '',
    lateStarts: 0,
  };
  const pending = new Set<Promise<void>>();
  // Set once the step's grace is over: answers after that are not counted (they were counted as errors).
  let closed = false;
  const fail = (kind: string, why: string) => {
    if (closed) return;
    result.errors++;
    (result.byKind[kind] ??= { latencies: [], errors: 0 }).errors++;
    result.firstError ||= `${kind}: ${why}`;
  };
  const started = performance.now();
  const send = (req: OpenRequest, due: number) =>
    new Promise<void>((done) => {
      const r = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: req.path,
          agent,
          headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const latency = performance.now() - due;
            if (closed) return done();
            if (req.ok.includes(res.statusCode ?? 0)) {
              result.latencies.push(latency);
              result.dueAt.push(due - started);
              (result.byKind[req.kind] ??= { latencies: [], errors: 0 }).latencies.push(latency);
            } else fail(req.kind, `HTTP ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`);
            done();
          });
          res.on('error', (err) => (fail(req.kind, err.message), done()));
        },
      );
      r.on('error', (err) => (fail(req.kind, err.message), done()));
      r.end(req.body);
    });
  const total = Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (performance.now() - due > 10) result.lateStarts++;
    const p = send(opts.next(), due);
    pending.add(p);
    void p.finally(() => pending.delete(p));
    result.sent++;
  }
  // What has not answered `graceMs` after the last request was due counts as an error (a timeout).
  const grace = opts.graceMs ?? 10_000;
  await Promise.race([Promise.all([...pending]), sleep(grace)]);
  for (let n = pending.size; n > 0; n--) fail('unanswered', `no answer within ${grace} ms after the step`);
  closed = true;
  agent.destroy();
  return result;
}

/** "p50 … p99 … ms" of a step (or of one kind of its requests). */
export const stepText = (latencies: number[]) =>
  `p50 ${percentile(latencies, 50).toFixed(1)}, p99 ${percentile(latencies, 99).toFixed(1)} ms`;

/**
 * The p99 of each `binSeconds` of a step, in order ("12 | 15 | 171 | …" ms): a step missed by one stall shows
 * one high bin, a step past capacity shows them rising.
 */
export function p99ByBin(r: StepResult, binSeconds: number): string {
  const bins: number[][] = [];
  r.latencies.forEach((l, i) => (bins[Math.floor(r.dueAt[i]! / 1000 / binSeconds)] ??= []).push(l));
  return Array.from(bins, (b) => (b?.length ? percentile(b, 99).toFixed(0) : '–')).join(' | ');
}
