import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { workflows } from '../../workflows/catalog.js';
import { measureCpu, type CpuGroups } from './cpu.js';

export interface Drain {
  seconds: number;
  drained: boolean;
  /** Kinds of work still in flight when the wait ended (0 when drained; running workflows are counted one by one). */
  backlog: number;
}

/** Below this many CPU milliseconds per second (all our processes together) the machine counts as quiet. */
const QUIET_MS_PER_SECOND = 40;
const QUIET_SECONDS = 2;

/**
 * Workflow types that stay open between bursts of work by design: a store's webhook lane and a
 * connection's push idle until woken, and a checkout-expiry bucket sleeps until its bucket ends. Their
 * work in flight shows in the database (outbox, events, deliveries, updates), so settling does not wait
 * for them to close.
 */
export const IDLE_BY_DESIGN = [workflows.webhookLane, workflows.webhookDispatch, workflows.connectionPush, workflows.checkoutExpiry].map(
  (w) => w.name,
);
const BUSY_WORKFLOWS = `ExecutionStatus="Running" AND ${IDLE_BY_DESIGN.map((t) => `WorkflowType != "${t}"`).join(' AND ')}`;

/**
 * Work still on its way (0 when none): outbox rows not yet relayed, order events no lane has taken yet,
 * webhook deliveries not yet finished, pushed updates due and not yet acknowledged, and workflows not
 * yet closed other than those idle by design.
 */
export async function pipelineBacklog(pool: pg.Pool, temporal: Client | null): Promise<number> {
  // exists, not count: cheap enough to ask four times a second while a big backlog drains (finished_at is
  // null: the small index of unfinished deliveries, not the whole delivery log the soak seeds).
  const { rows } = await pool.query<{ n: number }>(
    `select (exists (select 1 from outbox where done_at is null))::int
       + (exists (select 1 from order_events where dispatched_at is null and not backfill))::int
       + (exists (select 1 from webhook_deliveries where status in ('pending', 'sending') and finished_at is null))::int
       + (exists (select 1 from connection_updates where state = 'waiting' and not push_failed and next_push_at <= now()
                    and connection_id in (select id from connections where status = 'active' and push_url is not null)))::int as n`,
  );
  const waiting = rows[0]!.n;
  if (waiting > 0 || !temporal) return waiting;
  return (await temporal.workflow.count(BUSY_WORKFLOWS)).count;
}

/**
 * Waits until every order event is through the outbox and delivered and every busy workflow has closed, and then until our
 * processes have been quiet for 2 s in a row (Temporal keeps working a while after the last workflow
 * closes); gives up after `timeoutMs`. With `taken` only, it returns as soon as every event is taken.
 */
export async function waitForDrain(pool: pg.Pool, temporal: Client, groups: CpuGroups, timeoutMs: number, taken = false): Promise<Drain> {
  if (taken) return waitForBacklog(pool, null, timeoutMs);
  const started = Date.now();
  const left = () => timeoutMs - (Date.now() - started);
  const drain = await waitForBacklog(pool, temporal, timeoutMs);
  let quiet = 0;
  while (drain.drained && quiet < QUIET_SECONDS && left() > 0) {
    const { cpuMs } = await measureCpu(groups, () => new Promise((r) => setTimeout(r, 1000)));
    const busy = Object.values(cpuMs).reduce((a, b) => a + b, 0);
    quiet = busy < QUIET_MS_PER_SECOND ? quiet + 1 : 0;
  }
  return { seconds: (Date.now() - started) / 1000, drained: drain.drained && quiet >= QUIET_SECONDS, backlog: drain.backlog };
}

async function waitForBacklog(pool: pg.Pool, temporal: Client | null, timeoutMs: number): Promise<Drain> {
  const started = Date.now();
  let backlog = await pipelineBacklog(pool, temporal);
  while (backlog > 0 && Date.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 250));
    backlog = await pipelineBacklog(pool, temporal);
  }
  return { seconds: (Date.now() - started) / 1000, drained: backlog === 0, backlog };
}
