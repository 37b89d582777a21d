import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../observability/metrics.js';
import { SpanKind } from '@opentelemetry/api';
import { inStoredTrace, traceLink } from '../observability/trace-context.js';
import { OUTBOX_CHANNEL } from '../db/outbox.js';
import { PgNotifications } from '../db/notifications.js';
import { OUTBOX_DEAD_AFTER_FAILURES } from '../services/outbox.js';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../workflows/hand-off.js';
import { describeTemporalError, isTemporalBusyOrDown } from './errors.js';
import { executeBound } from '../db/bound.js';
import type { OutboxRow } from '../db/tables/outbox.js';

/** The columns a hand-off reads (the select below). */
type PendingHandOff = Pick<
  OutboxRow,
  | 'id'
  | 'action'
  | 'workflow_type'
  | 'workflow_id'
  | 'args'
  | 'signal_name'
  | 'signal_args'
  | 'search_attributes'
  | 'summary'
  | 'attempts'
  | 'failures'
  | 'traceparent'
>;

export interface RelayOptions {
  orm: MikroORM;
  client: Client;
  taskQueue: string;
  databaseUrl: string;
  log: Logger;
  /** Poll even without a notification, to catch rows whose retry time came. */
  pollMs?: number;
  batchSize?: number;
  /** OUTBOX_DEAD_AFTER_FAILURES unless a test needs it shorter. */
  deadAfterFailures?: number;
  /** How often the worker's log repeats that dead rows wait for an operator (10 minutes). */
  deadReportMs?: number;
  /** Counts hand-offs by outcome (METRICS_PORT set). */
  metrics?: WorkerMetrics;
  /** The process's LISTEN connection (the worker's, shared with the lanes); without it the relay opens its own. */
  notifications?: PgNotifications;
}

/**
 * Moves committed outbox rows to Temporal, each exactly once: workflow ids are deterministic and a
 * duplicate start is a no-op, so a crash between "started" and "marked done" cannot start twice.
 * Several relays may run (one per worker process): rows are claimed with SKIP LOCKED.
 */
export class OutboxRelay {
  private running = false;
  private wake: (() => void) | undefined;
  /** Set when the relay opened the LISTEN connection itself (no shared one given): it closes it too. */
  private ownNotifications: PgNotifications | undefined;
  private unsubscribe: () => void = () => {};
  private loop: Promise<void> | undefined;
  private deadReport: NodeJS.Timeout | undefined;

  constructor(private readonly opts: RelayOptions) {}

  start(): void {
    this.running = true;
    let notifications = this.opts.notifications;
    if (!notifications) {
      notifications = this.ownNotifications = new PgNotifications(this.opts.databaseUrl);
      notifications.start();
    }
    this.unsubscribe = notifications.subscribe(OUTBOX_CHANNEL, () => this.wake?.());
    this.loop = this.run();
    void this.reportDead();
    this.deadReport = setInterval(() => void this.reportDead(), this.opts.deadReportMs ?? 10 * 60_000);
    this.deadReport.unref();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.deadReport);
    this.wake?.();
    await this.loop;
    this.unsubscribe();
    await this.ownNotifications?.stop();
  }

  /** Rows waiting to be handed over, dead ones not counted (for tests). */
  async pendingCount(): Promise<number> {
    const rows = await executeBound<{ n: string }>(
      this.opts.orm.em.fork(),
      'select count(*)::text as n from outbox where done_at is null and dead_at is null',
    );
    return Number(rows[0]!.n);
  }

  /** Logs, at start and every deadReportMs, how many dead rows wait for an operator; quiet when none. */
  async reportDead(): Promise<number> {
    try {
      const [row] = await executeBound<{ n: number; oldest: string | null }>(
        this.opts.orm.em.fork(),
        `select count(*)::int as n, min(id)::text as oldest from outbox where dead_at is not null`,
      );
      if (row!.n > 0) {
        this.opts.log.error(
          { dead: row!.n, oldestId: row!.oldest },
          `outbox: ${row!.n} dead hand-off(s) wait for an operator: npm run --silent admin -- outbox list --dead, then outbox retry --id ID | --all-dead`,
        );
      }
      return row!.n;
    } catch {
      return 0; // PostgreSQL unreachable: the relay's own loop says so.
    }
  }

  private async run(): Promise<void> {
    const pollMs = this.opts.pollMs ?? 1000;
    while (this.running) {
      let moved = 0;
      try {
        moved = await this.drainOnce();
      } catch (err) {
        this.opts.log.warn({ err }, 'outbox relay: drain failed; retrying');
      }
      if (moved === 0 && this.running) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, pollMs);
          this.wake = () => (clearTimeout(timer), done());
        });
        this.wake = undefined;
      }
    }
  }

  /** Claims one batch and hands it to Temporal; returns how many rows were settled. */
  async drainOnce(): Promise<number> {
    const em = this.opts.orm.em.fork();
    return em.transactional(async (tx) => {
      const rows = await executeBound<PendingHandOff>(
        tx,
        `select id, action, workflow_type, workflow_id, args, signal_name, signal_args, search_attributes, summary, attempts, failures, traceparent
         from outbox where done_at is null and dead_at is null and next_attempt_at <= now()
         order by id limit ? for update skip locked`,
        [this.opts.batchSize ?? 100],
      );
      if (rows.length === 0) return 0;
      const results = await this.handOffAll(rows);
      const done: string[] = [];
      let settled = 0;
      let unreachable = 0;
      let deadNow = 0;
      for (const [i, result] of results.entries()) {
        const row = rows[i]!;
        if (result.status === 'fulfilled') {
          done.push(row.id);
          settled++;
          continue;
        }
        const err = result.reason as Error;
        // Temporal down or throttling is not the row's fault: it waits, however long, and never dies of it.
        const refused = !isTemporalBusyOrDown(err);
        const failures = row.failures + (refused ? 1 : 0);
        const dead = refused && failures >= (this.opts.deadAfterFailures ?? OUTBOX_DEAD_AFTER_FAILURES);
        const delay = Math.min(60, 2 ** Math.min(row.attempts, 6));
        await executeBound(
          tx,
          `update outbox set attempts = attempts + 1, failures = ?, last_error = ?, next_attempt_at = now() + make_interval(secs => ?),
             dead_at = case when ? then now() end
           where id = ?`,
          [failures, describeTemporalError(err).slice(0, 500), delay, dead, row.id],
        );
        const about = { err, outboxId: row.id, workflowId: row.workflow_id, failures };
        if (dead) {
          deadNow++;
          this.opts.log.error(
            about,
            `outbox hand-off ${row.id} is dead after ${failures} refusals; see it with outbox list --dead, send it again with outbox retry --id ${row.id}`,
          );
        } else if (refused) this.opts.log.error(about, 'outbox hand-off failed');
        else unreachable++;
      }
      if (done.length)
        await executeBound(tx, `update outbox set done_at = now() where id in (select jsonb_array_elements_text(?::jsonb)::bigint)`, [
          JSON.stringify(done),
        ]);
      this.count(settled, unreachable, results.length - settled - unreachable, deadNow);
      if (unreachable) this.opts.log.warn({ waiting: unreachable }, 'outbox relay: Temporal unreachable; rows wait for retry');
      return settled;
    });
  }

  /** Counts one batch's rows by outcome; the refused count includes the ones that died of it. */
  private count(handedOver: number, unreachable: number, refused: number, dead: number): void {
    const m = this.opts.metrics?.handOffs;
    if (!m) return;
    if (handedOver) m.inc({ outcome: 'handed_over' }, handedOver);
    if (unreachable) m.inc({ outcome: 'unreachable' }, unreachable);
    if (refused - dead) m.inc({ outcome: 'refused' }, refused - dead);
    if (dead) m.inc({ outcome: 'dead' }, dead);
  }

  /**
   * Hands rows over in parallel, but rows of one workflow one after another, in the order written. A row
   * that repeats the signal just before it for the same workflow (same name and arguments, as a lane's
   * wake-ups do) rides on that hand-off: one signal says what both would.
   */
  private async handOffAll(rows: PendingHandOff[]): Promise<PromiseSettledResult<void>[]> {
    const results: PromiseSettledResult<void>[] = new Array(rows.length);
    const chains = new Map<string, { done: Promise<void>; last: PendingHandOff; riders: number[] }>();
    rows.forEach((row, i) => {
      const chain = chains.get(row.workflow_id);
      if (chain && sameSignal(chain.last, row)) {
        chain.riders.push(i);
        return;
      }
      const riders = [i];
      const settle = (result: PromiseSettledResult<void>) => riders.forEach((k) => (results[k] = result));
      // Runs after this loop, when every row riding on this hand-off is known.
      const done = (chain?.done ?? Promise.resolve()).then(() =>
        this.handOff(
          row,
          riders.slice(1).map((k) => rows[k]!),
        ).then(
          () => settle({ status: 'fulfilled', value: undefined }),
          (reason: unknown) => settle({ status: 'rejected', reason }),
        ),
      );
      chains.set(row.workflow_id, { done, last: row, riders });
    });
    await Promise.all([...chains.values()].map((c) => c.done));
    return results;
  }

  /**
   * One row's hand-off, in the trace of the request that wrote the row when it was traced, linked to the
   * traces of the rows riding on it.
   */
  private handOff(row: PendingHandOff, riders: PendingHandOff[] = []): Promise<void> {
    return inStoredTrace(
      `outbox hand-off ${row.workflow_type}`,
      row.traceparent,
      {
        kind: SpanKind.PRODUCER,
        links: riders.flatMap((r) => traceLink(r.traceparent)),
        attributes: {
          'store_commerce.outbox.id': row.id,
          'store_commerce.outbox.action': row.action,
          'store_commerce.outbox.attempt': row.attempts + 1,
          'store_commerce.temporal.workflow_type': row.workflow_type,
          'store_commerce.temporal.workflow_id': row.workflow_id,
        },
      },
      () => this.handOffNow(row),
    );
  }

  private async handOffNow(row: PendingHandOff): Promise<void> {
    const { client, taskQueue } = this.opts;
    const typedSearchAttributes = Object.entries(row.search_attributes).map(
      ([name, value]) => ({ key: SEARCH_ATTRIBUTES[name as SearchAttributeName], value }) as SearchAttributePair,
    );
    const common = {
      taskQueue,
      workflowId: row.workflow_id,
      args: row.args,
      typedSearchAttributes,
      ...(row.summary ? { staticSummary: row.summary } : {}),
    };
    if (row.action === 'signal_with_start') {
      await client.workflow.signalWithStart(row.workflow_type, { ...common, signal: row.signal_name!, signalArgs: row.signal_args ?? [] });
      return;
    }
    try {
      await client.workflow.start(row.workflow_type, {
        ...common,
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      // Already ran to completion earlier: this hand-off was done before a crash; nothing to do.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw err;
    }
  }
}

/** Two signal-with-start rows that would deliver the same signal with the same arguments to the same workflow. */
function sameSignal(a: PendingHandOff, b: PendingHandOff): boolean {
  return (
    a.action === 'signal_with_start' &&
    b.action === 'signal_with_start' &&
    a.workflow_id === b.workflow_id &&
    a.signal_name === b.signal_name &&
    JSON.stringify(a.signal_args) === JSON.stringify(b.signal_args) &&
    JSON.stringify(a.args) === JSON.stringify(b.args)
  );
}
