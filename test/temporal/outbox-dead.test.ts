// Dead-letter for the outbox: a hand-off Temporal keeps refusing ends dead after the relay's bound and
// is tried no more; Temporal being unreachable never makes a row dead; operators list dead rows and send
// them again with the CLI, and the worker's log says they wait.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import { openOrm } from '../../db/orm.js';
import { OUTBOX_DEAD_AFTER_FAILURES } from '../../services/outbox.js';
import { createTemporalClient, type TemporalHandle } from '../../temporal/client.js';
import { OutboxRelay } from '../../temporal/outbox-relay.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';

// A database of its own: the run's worker must not relay these rows. Nothing polls this task queue.
const TASK_QUEUE = 'outbox-dead-letter-test';
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
let temporal: TemporalHandle;
let down: TemporalHandle;
const logLines: { msg: string; level: number; outboxId?: string; dead?: number }[] = [];
const log = createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line)) });

beforeAll(async () => {
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 3 });
  temporal = createTemporalClient({ address: inject('temporalAddress'), namespace: 'default', taskQueue: TASK_QUEUE });
  // Nothing listens there. Without the client's retries a refused connection fails in milliseconds, not 20 s.
  const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500, interceptors: [] });
  down = { client: new Client({ connection, namespace: 'default' }), connection, taskQueue: TASK_QUEUE };
});
afterAll(async () => {
  await temporal?.connection.close().catch(() => undefined);
  await down?.connection.close().catch(() => undefined);
  await orm?.close();
  await db?.drop();
});

const relayOn = (handle: TemporalHandle, deadAfterFailures?: number) =>
  new OutboxRelay({
    orm,
    client: handle.client,
    taskQueue: TASK_QUEUE,
    databaseUrl: db.url,
    log,
    ...(deadAfterFailures ? { deadAfterFailures } : {}),
  });
const sql = <T>(query: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(query, params);

/** A start row, as a producer writes it; `workflowId` decides whether Temporal takes it. */
async function row(workflowId: string): Promise<string> {
  const [r] = await sql<{ id: string }>(
    `insert into outbox (action, workflow_type, workflow_id, args, search_attributes, summary)
     values ('start', 'connectCodeWorkflow', ?, ?::jsonb, '{}', 'dead-letter test') returning id::text as id`,
    [workflowId, JSON.stringify([{ codeId: randomUUID(), storeId: randomUUID(), ttlMs: 600_000 }])],
  );
  return r!.id;
}
const state = async (id: string) =>
  (
    await sql<{ attempts: number; failures: number; dead_at: string | null; done_at: string | null; last_error: string | null }>(
      `select attempts, failures, dead_at, done_at, last_error from outbox where id = ?`,
      [id],
    )
  )[0]!;
/** One relay pass with the row's back-off skipped (the test does not wait a minute per try). */
async function drainNow(relay: OutboxRelay, id: string): Promise<void> {
  await sql(`update outbox set next_attempt_at = now() where id = ?`, [id]);
  await relay.drainOnce();
}

/** Runs the real CLI (`npm run admin`) against this file's database. */
const admin = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: db.url } },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );

// Temporal refuses a workflow id longer than its limit (1,000 bytes): an answer about the row, not an outage.
const refusedId = () => `dead-letter-test/${'x'.repeat(1100)}/${randomUUID()}`;

describe(`a hand-off Temporal refuses ${OUTBOX_DEAD_AFTER_FAILURES} times is dead`, () => {
  it('is refused, counted, and dead at the bound; then the relay tries it no more, and logs why', async () => {
    const id = await row(refusedId());
    const relay = relayOn(temporal, 3);
    for (const n of [1, 2]) {
      await drainNow(relay, id);
      expect(await state(id)).toMatchObject({ attempts: n, failures: n, dead_at: null, done_at: null });
    }
    await drainNow(relay, id);
    const dead = await state(id);
    expect(dead).toMatchObject({ attempts: 3, failures: 3, done_at: null });
    expect(dead.dead_at).not.toBeNull();
    expect(dead.last_error).toMatch(/length|long|limit/i);
    expect(logLines.find((l) => l.outboxId === id && /is dead after 3 refusals/.test(l.msg))?.level).toBe(50);

    await drainNow(relay, id);
    expect(await state(id)).toMatchObject({ attempts: 3, failures: 3 });
    expect(await relay.reportDead()).toBeGreaterThanOrEqual(1);
    expect(logLines.at(-1)?.msg).toMatch(/dead hand-off\(s\) wait for an operator: npm run --silent admin -- outbox list --dead/);
  });

  it('Temporal unreachable is an outage, not a refusal: the row waits past the bound and is never dead', async () => {
    const id = await row(`dead-letter-test/outage/${randomUUID()}`);
    const relay = relayOn(down, 2);
    for (let n = 1; n <= 5; n++) await drainNow(relay, id);
    expect(await state(id)).toMatchObject({ attempts: 5, failures: 0, dead_at: null, done_at: null });
    // When Temporal answers again it is handed over like any row.
    await drainNow(relayOn(temporal, 2), id);
    expect((await state(id)).done_at).not.toBeNull();
  });
});

describe('operators see dead hand-offs and send them again (outbox list, outbox retry)', () => {
  it('outbox list --dead --json prints one JSON document with the dead rows; without --dead, waiting rows too', async () => {
    const deadId = await row(refusedId());
    await drainNow(relayOn(temporal, 1), deadId);
    const waitingId = await row(`dead-letter-test/waiting/${randomUUID()}`);

    const run = await admin('outbox', 'list', '--dead', '--json');
    expect(run.code, run.stderr).toBe(0);
    const { handoffs } = JSON.parse(run.stdout);
    const listed = handoffs.find((h: { id: string }) => h.id === deadId);
    expect(listed).toMatchObject({
      action: 'start',
      workflow_type: 'connectCodeWorkflow',
      signal_name: null,
      summary: 'dead-letter test',
      attempts: 1,
      failures: 1,
    });
    expect(listed.dead_at).toMatch(/Z$/);
    expect(listed.last_error).toEqual(expect.any(String));
    expect(handoffs.map((h: { id: string }) => h.id)).not.toContain(waitingId);

    const all = JSON.parse((await admin('outbox', 'list', '--json')).stdout).handoffs.map((h: { id: string }) => h.id);
    expect(all).toEqual(expect.arrayContaining([deadId, waitingId]));
    const text = await admin('outbox', 'list', '--dead');
    expect(text.stdout).toContain(`${deadId}  DEAD since`);
  });

  it('outbox retry --id sends a dead row again with fresh counts, and the relay hands it over', async () => {
    const id = await row(`dead-letter-test/retried/${randomUUID()}`);
    // Dead after refusals of a cause since mended (as an operator finds it).
    await sql(
      `update outbox set attempts = 25, failures = 20, dead_at = now(), next_attempt_at = now() + interval '1 hour', last_error = 'refused' where id = ?`,
      [id],
    );
    const relay = relayOn(temporal);
    await relay.drainOnce();
    expect((await state(id)).done_at).toBeNull();

    const run = await admin('outbox', 'retry', '--id', id, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ retried: 1, ids: [id] });
    expect(await state(id)).toMatchObject({ attempts: 0, failures: 0, dead_at: null, done_at: null });
    await relay.drainOnce();
    expect((await state(id)).done_at).not.toBeNull();
    const [started] = await sql<{ workflow_id: string }>(`select workflow_id from outbox where id = ?`, [id]);
    await temporal.client.workflow.getHandle(started!.workflow_id).terminate('dead-letter test done');

    // A row already handed over is never sent twice.
    const again = await admin('outbox', 'retry', '--id', id, '--json');
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/no outbox row \d+ waiting or dead/);
  });

  it('outbox retry --all-dead sends every dead row again; a wrong command line is a usage error', async () => {
    const ids = [await row(refusedId()), await row(refusedId())];
    for (const id of ids) await drainNow(relayOn(temporal, 1), id);
    const run = await admin('outbox', 'retry', '--all-dead', '--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.ids).toEqual(expect.arrayContaining(ids));
    expect(out.retried).toBe(out.ids.length);
    expect(Number((await sql<{ n: string }>(`select count(*) as n from outbox where dead_at is not null`))[0]!.n)).toBe(0);

    for (const args of [[], ['--id', '1', '--all-dead'], ['--id', 'abc']]) {
      const bad = await admin('outbox', 'retry', ...args, '--json');
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stdout).toBe('');
    }
  });
});
