import { alternate } from './compare.js';
import { EARLIER_ORDERS, KEYS_PER_STORE, type BenchEnv } from './environment.js';
import { createBenchStore, keyRotation } from './fixtures.js';
import { cpuPerRequestText, measure, type Measured } from './measure.js';
import { orderBodies } from './order-bodies.js';
import { rssMb } from './processes.js';
import { SATURATION_CONNECTIONS, type Scenario } from './scenario.js';
import { fmt, median, summarize } from './stats.js';

/**
 * SQL statements per order write (BEGIN and COMMIT count), the API key check and its rate-limit counter
 * included: ours as test/orders/statements.test.ts holds it (it fails above 3, and when a new card-paid order takes
 * more than 2), the baseline's as written.
 */
export const STATEMENTS_PER_ORDER_WRITE = {
  ours: "2 for a new order, 3 for an update (the key check with its rate-limit counter; then, when no cash-on-delivery risk flag needs the phone's history, the write of the order as new, its events, history line and notices, which finds a held copy instead; for an update, the write of the change; with such a phone, the held copy and the phone history read, then one write)",
  baseline:
    '6 for a new order, 5 for an update (the same key check; BEGIN; the upsert; a history line for a new order; its events, order.created and order.paid in one INSERT; COMMIT)',
};

/** Share of requests that re-send an external id already sent (as an update). */
const REPEAT_SHARE = 0.2;

async function outboxRows(env: BenchEnv): Promise<number> {
  const { rows } = await env.pool.query<{ n: number }>('select count(*)::int as n from outbox');
  return rows[0]!.n;
}

/**
 * POST /orders upserts per second (2xx only) with `items` line items, 80% new / 20% repeated external ids,
 * vs a minimal Fastify + pg server doing the same logical writes in one transaction.
 */
export function upsertScenario(id: string, items: number, aim: number): Scenario {
  return {
    id,
    async run(env) {
      const baseline = await env.startBaseline('pg-orders', { WRITE_STORE_ID: env.store.id, READ_STORE_ID: env.store.id });
      // The baseline checks keys and counts requests as ours does, against keys of its own (a twin store):
      // sharing ours would push our keys toward their 300/min limit.
      const twin = await createBenchStore(env.pool, `Bench Store twin ${id}`, KEYS_PER_STORE);
      const drains: number[] = [];
      const rss: number[] = [];
      try {
        const nextKey = keyRotation(env.store.keys);
        const nextBaselineKey = keyRotation(twin.keys);
        const baselineCpu = env.baselineCpu(baseline.process);
        // Ours is accounted until its order events are through the worker and Temporal: that work is part of a request's cost.
        const settle = async () => {
          const drain = await env.settle();
          if (!drain.drained)
            env.log(`${id}: order events or workflows still in flight after ${fmt(drain.seconds)} s of waiting; measuring anyway`);
          if (drain.seconds > 0.3) drains.push(drain.seconds);
        };
        const load = (url: string, tag: string, seed: number, durationSec: number, isOurs: boolean, drain = isOurs) => {
          const bodies = orderBodies({ items, idPrefix: `${id}-${tag}`, repeatShare: REPEAT_SHARE, seed });
          const key = isOurs ? nextKey : nextBaselineKey;
          return measure(
            isOurs ? env.oursCpu : baselineCpu,
            {
              url: `${url}/api/v1/orders`,
              method: 'POST',
              connections: SATURATION_CONNECTIONS,
              durationSec,
              headers: { 'content-type': 'application/json' },
              next: () => ({ body: bodies(), headers: { authorization: `Bearer ${key()}` } }),
            },
            drain ? settle : undefined,
          );
        };
        // Warm-ups are not measured: the baseline's may run while ours' workflows finish; the first round settles first.
        await load(env.api.url, 'ours-warm', 0, env.warmupSec, true, false);
        await load(baseline.url, 'base-warm', 0, env.warmupSec, false);
        const outboxBefore = await outboxRows(env);
        const runs = await alternate<Measured>({
          id,
          rounds: env.rounds,
          unit: 'req/s',
          ours: async (round) => {
            const result = await load(env.api.url, `ours-${round}`, round, env.measureSec, true);
            rss.push(rssMb(env.api.process.pid));
            return result;
          },
          baseline: (round) => load(baseline.url, `base-${round}`, round, env.measureSec, false),
          detail: (o) => `ours non-2xx ${o.non2xx}, errors ${o.errors}`,
          value: (m) => m.okPerSec,
          settle: env.settle,
          log: env.log,
        });
        const handed = (await outboxRows(env)) - outboxBefore;
        const failed = runs.ours.reduce((n, r) => n + r.non2xx + r.errors, 0);
        const baseFailed = runs.baseline.reduce((n, r) => n + r.non2xx + r.errors, 0);
        const created = runs.ours.reduce((n, r) => n + (r.statuses['201'] ?? 0), 0);
        const updated = runs.ours.reduce((n, r) => n + (r.statuses['200'] ?? 0), 0);
        const notes =
          `POST /orders into a store holding ${EARLIER_ORDERS.toLocaleString('en')}+ orders, ${items} items, ${SATURATION_CONNECTIONS} connections, ${env.measureSec} s per measurement, 80% new / 20% repeated ids ` +
          `(a repeat changes the note: a real update with an order.updated event); ours 201 created ${created}, 200 updated ${updated}, ` +
          `non-2xx or failed ${failed}${failed ? ` ${JSON.stringify(runs.ours.map((r) => r.statuses))}` : ''}, baseline ${baseFailed}; ` +
          `p99 ours ${fmt(median(runs.ours.map((r) => r.p99Ms)))} ms vs baseline ${fmt(median(runs.baseline.map((r) => r.p99Ms)))} ms; ` +
          `CPU per request (ours until its events are through Temporal) ours ${cpuPerRequestText(runs.ours)}, baseline ${cpuPerRequestText(runs.baseline)}; ` +
          `hand-offs to Temporal written by ours ${handed}${handed ? '' : ' (no webhook endpoint subscribes: events stay in PostgreSQL)'}; ` +
          `our processes quiet again ${drains.length ? `${fmt(Math.min(...drains))}-${fmt(Math.max(...drains))} s` : 'at once'} after the load stopped (outbox and workflows done, 2 s idle); ` +
          `API RSS after each ours measurement ${rss.map((m) => fmt(m)).join(', ')} MB; ` +
          `statements per order write: ours ${STATEMENTS_PER_ORDER_WRITE.ours}, baseline ${STATEMENTS_PER_ORDER_WRITE.baseline}; ` +
          `baseline: Fastify + pg, no ORM/schema, every statement prepared, the same key check and rate-limit count as ours (keys of a twin store), ` +
          `then upsert + status history line (new order) + the events ours records in one transaction (order.created and order.paid for a new paid order, order.updated for a repeat), no outbox row and no NOTIFY (ours writes neither here: no endpoint subscribes); ` +
          `ours does more: validation (a quick reader of the plain shape, else zod: contract/schemas/order-input-quick.ts), cleaning and the content fingerprint of every field, the status mapping, the payment status, ` +
          `cash-on-delivery risk flags from the phone's history, deciding the events a change implies from the held copy (this bench's orders imply only created, paid and updated, which the baseline writes too), ` +
          `the look-up of subscribed webhook endpoints, push devices and chat settings, and its events through the worker and Temporal when any; aim ≥ ${aim}`;
        return summarize(
          'req_per_s',
          runs.ours.map((r) => r.okPerSec),
          runs.baseline.map((r) => r.okPerSec),
          notes,
        );
      } finally {
        await baseline.process.stop();
      }
    },
  };
}
