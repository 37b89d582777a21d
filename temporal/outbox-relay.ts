import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import pg from 'pg';
import type { Logger } from 'pino';
import { OUTBOX_CHANNEL } from '../db/outbox.js';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../workflows/definitions.js';
import { isTemporalUnavailable } from './errors.js';

interface OutboxRow {
  id: string;
  action: 'start' | 'signal_with_start';
  workflow_type: string;
  workflow_id: string;
  args: unknown[];
  signal_name: string | null;
  signal_args: unknown[] | null;
  search_attributes: Partial<Record<SearchAttributeName, string>>;
  summary: string | null;
  attempts: number;
}

export interface RelayOptions {
  orm: MikroORM;
  client: Client;
  taskQueue: string;
  databaseUrl: string;
  log: Logger;
  /** Poll even without a notification, to catch rows whose retry time came. */
  pollMs?: number;
  batchSize?: number;
}

/**
 * Moves committed outbox rows to Temporal, each exactly once: workflow ids are deterministic and a
 * duplicate start is a no-op, so a crash between "started" and "marked done" cannot start twice.
 * Several relays may run (one per worker process): rows are claimed with SKIP LOCKED.
 */
export class OutboxRelay {
  private running = false;
  private wake: (() => void) | undefined;
  private listener: pg.Client | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: RelayOptions) {}

  start(): void {
    this.running = true;
    void this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
  }

  /** Rows not yet handed over (for readiness and tests). */
  async pendingCount(): Promise<number> {
    const rows = await this.opts.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from outbox where done_at is null');
    return Number(rows[0]!.n);
  }

  private async listen(): Promise<void> {
    while (this.running) {
      try {
        const client = new pg.Client({ connectionString: this.opts.databaseUrl, client_encoding: 'UTF8' });
        client.on('notification', () => this.wake?.());
        const ended = new Promise<void>((done) => {
          client.on('error', () => done());
          client.on('end', () => done());
        });
        await client.connect();
        await client.query(`listen ${OUTBOX_CHANNEL}`);
        this.listener = client;
        await ended;
      } catch {
        // PostgreSQL unreachable: polling still runs; try to listen again shortly.
      }
      if (this.running) await sleep(2000);
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
      const rows = await tx.execute<OutboxRow[]>(
        `select id, action, workflow_type, workflow_id, args, signal_name, signal_args, search_attributes, summary, attempts
         from outbox where done_at is null and next_attempt_at <= now()
         order by id limit ? for update skip locked`,
        [this.opts.batchSize ?? 100],
      );
      if (rows.length === 0) return 0;
      const results = await this.handOffAll(rows);
      const done: string[] = [];
      let settled = 0;
      for (const [i, result] of results.entries()) {
        const row = rows[i]!;
        if (result.status === 'fulfilled') {
          done.push(row.id);
          settled++;
          continue;
        }
        const err = result.reason as Error;
        const delay = Math.min(60, 2 ** Math.min(row.attempts, 6));
        await tx.execute(
          `update outbox set attempts = attempts + 1, last_error = ?, next_attempt_at = now() + make_interval(secs => ?) where id = ?`,
          [String(err?.message ?? err).slice(0, 500), delay, row.id],
        );
        if (!isTemporalUnavailable(err)) this.opts.log.error({ err, outboxId: row.id, workflowId: row.workflow_id }, 'outbox hand-off failed');
      }
      if (done.length) await tx.execute(`update outbox set done_at = now() where id in (select jsonb_array_elements_text(?::jsonb)::bigint)`, [JSON.stringify(done)]);
      if (settled < rows.length) this.opts.log.warn({ waiting: rows.length - settled }, 'outbox relay: Temporal unreachable; rows wait for retry');
      return settled;
    });
  }

  /**
   * Hands rows over in parallel, but rows of one workflow one after another, in the order written. A row
   * that repeats the signal just before it for the same workflow (same name and arguments, as a lane's
   * wake-ups do) rides on that hand-off: one signal says what both would.
   */
  private async handOffAll(rows: OutboxRow[]): Promise<PromiseSettledResult<void>[]> {
    const results: PromiseSettledResult<void>[] = new Array(rows.length);
    const chains = new Map<string, { done: Promise<void>; last: OutboxRow; riders: number[] }>();
    rows.forEach((row, i) => {
      const chain = chains.get(row.workflow_id);
      if (chain && sameSignal(chain.last, row)) {
        chain.riders.push(i);
        return;
      }
      const riders = [i];
      const settle = (result: PromiseSettledResult<void>) => riders.forEach((k) => (results[k] = result));
      const done = (chain?.done ?? Promise.resolve()).then(() =>
        this.handOff(row).then(
          () => settle({ status: 'fulfilled', value: undefined }),
          (reason: unknown) => settle({ status: 'rejected', reason }),
        ),
      );
      chains.set(row.workflow_id, { done, last: row, riders });
    });
    await Promise.all([...chains.values()].map((c) => c.done));
    return results;
  }

  private async handOff(row: OutboxRow): Promise<void> {
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two signal-with-start rows that would deliver the same signal with the same arguments to the same workflow. */
function sameSignal(a: OutboxRow, b: OutboxRow): boolean {
  return (
    a.action === 'signal_with_start' &&
    b.action === 'signal_with_start' &&
    a.workflow_id === b.workflow_id &&
    a.signal_name === b.signal_name &&
    JSON.stringify(a.signal_args) === JSON.stringify(b.signal_args) &&
    JSON.stringify(a.args) === JSON.stringify(b.args)
  );
}
