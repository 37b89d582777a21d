// The service's own Prometheus metric families, named in one place. A process builds them only when
// METRICS_PORT is set; without it nothing is counted and the hot paths skip a null check's worth of work.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from '../config/build-info.js';

/** Which process a page describes (a label on every series, so pages can be scraped side by side). */
export type MetricsProcess = 'api' | 'worker' | 'start';

/**
 * A process's registry, with Node's own process metrics (CPU, memory, event-loop delay) in it and the
 * build it runs (`store_commerce_build_info{version,commit} 1`, the convention that lets a query join on it).
 */
export function createMetricsRegistry(process: MetricsProcess): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process });
  collectDefaultMetrics({ register: registry });
  const build = buildInfo();
  new Gauge({
    name: 'store_commerce_build_info',
    help: 'Always 1; its labels say which version and source commit this process runs',
    labelNames: ['version', 'commit'],
    registers: [registry],
  }).set(build, 1);
  return registry;
}

/** Latency buckets (seconds) for requests and outbound POSTs: from a cached read to a timed-out delivery. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the API counts per request; label values are bounded (route patterns, never raw URLs). */
export interface ApiMetrics {
  requests: Counter<'route' | 'method' | 'status' | 'key_kind'>;
  duration: Histogram<'route' | 'method'>;
  rateLimited: Counter<'route' | 'key_kind'>;
  serverErrors: Counter<'route' | 'status'>;
}

/** The API's families, registered in `registry`. */
export function apiMetrics(registry: Registry): ApiMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'store_commerce_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method, status and the kind of key that called',
      labelNames: ['route', 'method', 'status', 'key_kind'],
      registers,
    }),
    duration: new Histogram({
      name: 'store_commerce_http_request_duration_seconds',
      help: 'Time from the request arriving to the response sent, by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rateLimited: new Counter({
      name: 'store_commerce_http_rate_limited_total',
      help: 'Requests refused with 429 rate_limited, by route pattern and key kind',
      labelNames: ['route', 'key_kind'],
      registers,
    }),
    serverErrors: new Counter({
      name: 'store_commerce_http_server_errors_total',
      help: 'Requests answered with a 5xx status, by route pattern and status',
      labelNames: ['route', 'status'],
      registers,
    }),
  };
}

/** Outcomes of one webhook delivery attempt. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'cancelled' | 'circuit_open';

/** What the worker counts: deliveries, pushes, activities and the outbox relay's hand-offs. */
export interface WorkerMetrics {
  deliveries: Counter<'outcome'>;
  deliveryDuration: Histogram<'outcome'>;
  pushes: Counter<'outcome'>;
  activityDuration: Histogram<'activity' | 'outcome'>;
  handOffs: Counter<'outcome'>;
}

/** The worker's families, registered in `registry` (the outbox gauges are added where the database is known). */
export function workerMetrics(registry: Registry): WorkerMetrics {
  const registers = [registry];
  return {
    deliveries: new Counter({
      name: 'store_commerce_webhook_deliveries_total',
      help: "Webhook delivery attempts by outcome: delivered (2xx), failed (any other answer or none), cancelled (not sent: endpoint gone or already attempted), circuit_open (not sent: waited too long behind the endpoint's open circuit)",
      labelNames: ['outcome'],
      registers,
    }),
    deliveryDuration: new Histogram({
      name: 'store_commerce_webhook_delivery_duration_seconds',
      help: 'Duration of one webhook POST, from connecting to the answer (or the timeout)',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    pushes: new Counter({
      name: 'store_commerce_connection_push_updates_total',
      help: "Updates pushed to connected shops, by outcome: acknowledged (the plugin's reply applied or failed it) or not_acknowledged (it waits for the next attempt)",
      labelNames: ['outcome'],
      registers,
    }),
    activityDuration: new Histogram({
      name: 'store_commerce_activity_duration_seconds',
      help: "Duration of one activity execution in this worker, by activity type and outcome (completed, failed, or handed_over: a lane run cut short by the worker's stop, retried by the next worker)",
      labelNames: ['activity', 'outcome'],
      // Lane activities run for up to minutes while busy; the rest take milliseconds.
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    handOffs: new Counter({
      name: 'store_commerce_outbox_handoffs_total',
      help: 'Outbox rows the relay handled, by outcome: handed_over, unreachable (Temporal down or busy; retried), refused (retried), dead (refused too often; waits for an operator)',
      labelNames: ['outcome'],
      registers,
    }),
  };
}

/** The outbox as one scrape-time query sees it. */
export interface OutboxState {
  waiting: number;
  oldestWaitingSeconds: number;
  dead: number;
}

/**
 * Gauges read at scrape time by `read` (one cheap query shared by the three), never kept up to date.
 * When the query fails (PostgreSQL unreachable) they read NaN: no value rather than a stale one.
 */
export function outboxGauges(registry: Registry, read: () => Promise<OutboxState>): void {
  let pending: Promise<OutboxState | null> | undefined;
  // prom-client collects every family of a scrape in parallel: the first gauge starts the query, the others share it.
  const state = () =>
    (pending ??= read()
      .catch(() => null)
      .finally(() => setImmediate(() => (pending = undefined))));
  const gauge = (name: string, help: string, pick: (s: OutboxState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const s = await state();
        this.set(s ? pick(s) : NaN);
      },
    });
  gauge('store_commerce_outbox_waiting', 'Outbox rows not yet handed to Temporal (dead ones not counted)', (s) => s.waiting);
  gauge(
    'store_commerce_outbox_oldest_waiting_age_seconds',
    'Age of the oldest outbox row not yet handed to Temporal (0 when none waits)',
    (s) => s.oldestWaitingSeconds,
  );
  gauge('store_commerce_outbox_dead', 'Outbox rows the relay gave up on; they wait for an operator (outbox retry)', (s) => s.dead);
}
