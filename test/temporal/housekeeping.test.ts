// Housekeeping as Temporal Schedules: the run's worker creates one schedule per job, several workers
// starting together leave one each (an operator's pause kept), and triggering one runs its job against
// real rows, as an operator would from the Temporal UI.
import { randomUUID } from 'node:crypto';
import type { ScheduleHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OUTBOX_RETENTION_DAYS } from '../../services/outbox.js';
import { ensureHousekeepingSchedules, HOUSEKEEPING } from '../../temporal/schedules.js';
import { HOUSEKEEPING_JOBS, type HousekeepingJob, type HousekeepingResult } from '../../workflows/housekeeping/definitions.js';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const schedule = (job: HousekeepingJob) => t.temporal.client.schedule.getHandle(workflowIds.housekeeping(job));
const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(query, params);

/** Triggers the job's schedule as the UI's "Trigger" button does and waits for that run's result. */
async function trigger(job: HousekeepingJob): Promise<HousekeepingResult> {
  const handle = schedule(job);
  const before = new Set((await handle.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await handle.trigger();
  let run: { workflowId: string; firstExecutionRunId: string } | undefined;
  await eventually(
    async () => {
      run = (await handle.describe()).info.recentActions.map((a) => a.action.workflow).find((w) => !before.has(w.workflowId));
      return run !== undefined;
    },
    20_000,
    `a run of ${job}`,
  );
  return t.temporal.client.workflow.getHandle(run!.workflowId, run!.firstExecutionRunId).result();
}

describe('each housekeeping job is a Temporal Schedule the worker creates at start', () => {
  it('housekeeping/<job> runs housekeepingWorkflow(job) on the task queue at its interval, not paused', async () => {
    for (const job of HOUSEKEEPING_JOBS) {
      let handle: ScheduleHandle = schedule(job);
      // The run's worker creates them once it is connected; it may still be starting.
      await eventually(async () => !!(await handle.describe().catch(() => null)), 30_000, `schedule ${job}`);
      handle = schedule(job);
      const d = await handle.describe();
      expect(d.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'housekeepingWorkflow',
        args: [job],
        taskQueue: inject('taskQueue'),
        workflowId: `housekeeping/${job}`,
      });
      expect(d.action.staticSummary).toBe(HOUSEKEEPING[job].summary);
      expect(d.spec.intervals?.map((i) => i.every)).toEqual([{ 'outbox-purge': 3_600_000, retention: 900_000 }[job as string] ?? 60_000]);
      expect(d.policies.overlap).toBe('SKIP');
      expect(d.state.paused).toBe(false);
    }
  });

  it('workers starting together leave one schedule per job, brought to this version, and a paused one stays paused', async () => {
    const handle = schedule('rate-limit-cleanup');
    await handle.pause('paused by the test');
    // An older version's interval, as if a previous deployment had created it.
    await handle.update((previous) => ({
      ...previous,
      spec: { intervals: [{ every: '1 hour' }] },
      state: { paused: true, note: 'paused by the test' },
    }));
    try {
      const ids = await Promise.all([1, 2, 3].map(() => ensureHousekeepingSchedules(t.temporal.client, inject('taskQueue'))));
      expect(ids[0]).toEqual(HOUSEKEEPING_JOBS.map((job) => `housekeeping/${job}`));
      const d = await handle.describe();
      expect(d.spec.intervals?.map((i) => i.every)).toEqual([60_000]);
      expect(d.state).toMatchObject({ paused: true, note: 'paused by the test' });
      const listed: string[] = [];
      for await (const s of t.temporal.client.schedule.list()) if (s.scheduleId.startsWith('housekeeping/')) listed.push(s.scheduleId);
      expect(listed.sort()).toEqual(HOUSEKEEPING_JOBS.map((job) => `housekeeping/${job}`).sort());
    } finally {
      await handle.unpause('unpaused by the test');
    }
  });
});

describe('triggering a schedule runs its job against real rows', () => {
  it(`outbox-purge deletes rows handed over more than ${OUTBOX_RETENTION_DAYS} days ago and keeps the rest`, async () => {
    const tag = `purge-test/${randomUUID()}`;
    const insert = (suffix: string, doneAt: string | null, createdAt: string) =>
      sql<{ id: string }>(
        `insert into outbox (action, workflow_type, workflow_id, args, search_attributes, created_at, next_attempt_at, done_at)
         values ('start', 'housekeepingWorkflow', ?, '[]', '{}', now() - ?::interval, now() + interval '1 day', now() - ?::interval) returning id`,
        [`${tag}/${suffix}`, createdAt, doneAt],
      );
    await insert('old-done', `${OUTBOX_RETENTION_DAYS + 1} days`, `${OUTBOX_RETENTION_DAYS + 1} days`);
    await insert('recent-done', `${OUTBOX_RETENTION_DAYS - 1} days`, `${OUTBOX_RETENTION_DAYS - 1} days`);
    // Not handed over yet (waiting, or dead): never purged, however old.
    await insert('old-waiting', null, `${OUTBOX_RETENTION_DAYS * 4} days`);

    const result = await trigger('outbox-purge');
    expect(result.job).toBe('outbox-purge');
    expect(result.rows).toBeGreaterThanOrEqual(1);
    const left = await sql<{ workflow_id: string }>(`select workflow_id from outbox where workflow_id like ? order by id`, [`${tag}/%`]);
    expect(left.map((r) => r.workflow_id)).toEqual([`${tag}/recent-done`, `${tag}/old-waiting`]);
    await sql(`delete from outbox where workflow_id like ?`, [`${tag}/%`]);
  });

  it('retention deletes delivery attempts older than WEBHOOK_DELIVERY_RETENTION_DAYS (30) and keeps recent ones', async () => {
    const receiver = await startReceiver();
    const s = await createTestStore(t.orm);
    const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:write', 'webhooks:write'] });
    const hook = await t.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: receiver.url(), events: ['order.paid'] },
    });
    await receiver.close();
    const order = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(key),
      payload: { external_id: 'retention-1', totals: { total: 1 } },
    });
    // One event each: one first attempt per event and endpoint.
    const deliveryAged = async (days: number) => {
      const [event] = await sql<{ id: string }>(
        `insert into order_events (id, store_id, order_id, type, actor, payload, created_at, dispatched_at)
         values (gen_random_uuid(), ?, ?, 'order.paid', 'test', '{}', now() - interval '40 days', now() - interval '40 days') returning id`,
        [s.store.id, order.json<{ order: { id: string } }>().order.id],
      );
      return sql<{ id: string }>(
        `insert into webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, order_id, status, created_at, finished_at)
         select gen_random_uuid(), store_id, ?, id, type, order_id, 'delivered', now() - make_interval(days => ?), now() - make_interval(days => ?)
         from order_events where id = ? returning id`,
        [hook.json<{ id: string }>().id, days, days, event!.id],
      );
    };
    const [old] = await deliveryAged(31);
    const [recent] = await deliveryAged(29);

    const result = await trigger('retention');
    expect(result.job).toBe('retention');
    expect(result.rows).toBeGreaterThanOrEqual(1);
    const left = await sql<{ id: string }>(`select id from webhook_deliveries where id in (?, ?)`, [old!.id, recent!.id]);
    expect(left).toEqual([{ id: recent!.id }]);
  });

  it('rate-limit-cleanup deletes windows older than 5 minutes and keeps the current one', async () => {
    const bucket = `test:${randomUUID()}`;
    await sql(
      `insert into rate_limit_counters (bucket, window_start, count) values (?, date_trunc('minute', now()) - interval '10 minutes', 3), (?, date_trunc('minute', now()), 1)`,
      [bucket, bucket],
    );
    const result = await trigger('rate-limit-cleanup');
    expect(result.job).toBe('rate-limit-cleanup');
    const left = await sql<{ count: number }>(`select count from rate_limit_counters where bucket = ?`, [bucket]);
    expect(left).toEqual([{ count: 1 }]);
  });

  it('delivery-sweep settles as failed a delivery a dead worker left sending, and leaves a current attempt alone', async () => {
    const receiver = await startReceiver();
    try {
      const s = await createTestStore(t.orm);
      const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:write', 'webhooks:write'] });
      expect(
        (await t.request({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(key), payload: { url: receiver.url() } })).statusCode,
      ).toBe(201);
      for (const n of [1, 2]) {
        const created = await t.request({
          method: 'POST',
          url: '/api/v1/orders',
          headers: bearer(key),
          payload: { external_id: `sweep-${n}`, totals: { total: n } },
        });
        expect(created.statusCode).toBe(201);
      }
      const delivered = () =>
        sql<{ id: string }>(`select id from webhook_deliveries where store_id = ? and status = 'delivered' order by created_at`, [
          s.store.id,
        ]);
      await eventually(async () => (await delivered()).length === 2, 20_000, 'both deliveries');
      const [cut, current] = (await delivered()).map((d) => d.id);
      // As a worker that died mid-attempt leaves them: one 10 minutes ago, one just now.
      await sql(
        `update webhook_deliveries set status = 'sending', finished_at = null, attempted_at = now() - interval '10 minutes' where id = ?`,
        [cut],
      );
      await sql(`update webhook_deliveries set status = 'sending', finished_at = null, attempted_at = now() where id = ?`, [current]);

      const result = await trigger('delivery-sweep');
      expect(result.rows).toBeGreaterThanOrEqual(1);
      const rows = await sql<{ id: string; status: string; error: string | null }>(
        `select id, status, error from webhook_deliveries where id in (?, ?)`,
        [cut, current],
      );
      expect(rows.find((r) => r.id === cut)).toMatchObject({ status: 'failed', error: expect.stringContaining('cut off') });
      expect(rows.find((r) => r.id === current)).toMatchObject({ status: 'sending' });
    } finally {
      await receiver.close();
    }
  });
});
