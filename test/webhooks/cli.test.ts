// The operator CLI for webhooks, run as a real child process: `webhooks deliveries` and `webhooks replay`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verify as verifyOctokit } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workflowIds } from '../../workflows/catalog.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey, createTestStore } from '../helpers/store.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const admin = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: 'http://127.0.0.1:3999' } },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
const FIELDS = [
  'activity_id',
  'attempted_at',
  'created_at',
  'duration_ms',
  'endpoint_id',
  'error',
  'event_id',
  'event_type',
  'id',
  'order_id',
  'replay_of',
  'response_status',
  'run_id',
  'status',
  'url',
  'workflow_id',
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function storeWithEndpoint(url: string) {
  const s = await createTestStore(t.orm);
  const { key } = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read', 'orders:write', 'webhooks:write'] });
  const endpoint = (await t.request({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(key), payload: { url } })).json();
  return { ...s, admin: key, endpoint };
}
const finished = (storeId: string, n: number) =>
  eventually(
    async () => {
      const rows = await t.orm.em
        .fork()
        .execute<{ status: string }[]>(`select status from webhook_deliveries where store_id = ?`, [storeId]);
      return rows.length === n && rows.every((r) => r.status === 'delivered' || r.status === 'failed');
    },
    20_000,
    `${n} finished deliveries`,
  );

describe('webhooks deliveries and webhooks replay', () => {
  it('lists a failed delivery with --failed, and a replay once the receiver is fixed is a new, delivered attempt', async () => {
    let answer = 500;
    const receiver = await startReceiver((_r, res) => void res.writeHead(answer).end());
    const s = await storeWithEndpoint(receiver.url());
    const orderId = (
      await t.request({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(s.secret),
        payload: { external_id: 'cli-wh-1', totals: { total: 5 } },
      })
    ).json().order.id;
    await finished(s.store.id, 1);

    const failed = await admin('webhooks', 'deliveries', '--store', s.store.id, '--failed', '--json');
    expect(failed.code, failed.stderr).toBe(0);
    const { deliveries } = JSON.parse(failed.stdout);
    expect(deliveries).toHaveLength(1);
    const [original] = deliveries;
    expect(Object.keys(original).sort()).toEqual(FIELDS);
    expect(original).toMatchObject({
      endpoint_id: s.endpoint.id,
      url: receiver.url(),
      event_type: 'order.created',
      order_id: orderId,
      status: 'failed',
      response_status: 500,
      error: 'answered 500',
      replay_of: null,
    });
    expect(original.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(original.attempted_at).toMatch(/Z$/);
    expect(original.duration_ms).toEqual(expect.any(Number));
    // Support finds the attempt in the Temporal UI: the store's lane, the run and the activity that sent it.
    expect(original).toMatchObject({
      workflow_id: workflowIds.storeWebhookDispatch(s.store.id),
      run_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      activity_id: expect.any(String),
    });

    answer = 200;
    const replay = await admin('webhooks', 'replay', '--delivery', original.id, '--json');
    expect(replay.code, replay.stderr).toBe(0);
    const { delivery } = JSON.parse(replay.stdout);
    expect(delivery).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), replay_of: original.id });
    expect(delivery.id).not.toBe(original.id);

    await eventually(() => receiver.received.length === 2, 20_000, 'the replayed request');
    await finished(s.store.id, 2);
    const [first, second] = receiver.received;
    expect(first!.headers['x-service-delivery']).toBe(original.id);
    expect(second!.headers['x-service-delivery']).toBe(delivery.id);
    // Standard Webhooks: the same message sent again keeps its webhook-id (the event id) and verifies.
    expect(second!.headers['webhook-id']).toBe(original.event_id);
    expect(first!.headers['webhook-id']).toBe(original.event_id);
    expect(() => new Webhook(s.endpoint.secret).verify(second!.body, second!.headers as Record<string, string>)).not.toThrow();
    expect(second!.body).toBe(first!.body); // the same event, as it was
    expect(await verifyOctokit(s.endpoint.secret, second!.body, second!.headers['x-service-signature'] as string)).toBe(true);

    const all = JSON.parse((await admin('webhooks', 'deliveries', '--store', s.store.id, '--json')).stdout).deliveries;
    expect(all.map((d: { id: string; status: string; replay_of: string | null }) => [d.id, d.status, d.replay_of])).toEqual([
      [delivery.id, 'delivered', original.id],
      [original.id, 'failed', null],
    ]);
    expect(
      JSON.parse((await admin('webhooks', 'deliveries', '--store', s.store.id, '--failed', '--json')).stdout).deliveries.map(
        (d: { id: string }) => d.id,
      ),
    ).toEqual([original.id]);
    expect(
      JSON.parse((await admin('webhooks', 'deliveries', '--store', s.store.id, '--limit', '1', '--json')).stdout).deliveries,
    ).toHaveLength(1);

    // The replay ran as its own workflow, findable by its readable id.
    const handle = t.temporal.client.workflow.getHandle(`webhook-delivery/${original.event_id}/${s.endpoint.id}/replay-${delivery.id}`);
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    const text = await admin('webhooks', 'deliveries', '--store', s.store.id);
    expect(text.stdout).toContain(`replay of ${original.id}`);
    expect(text.stdout).toContain('error: answered 500');
    await receiver.close();
  }, 90_000);

  it('a replay of a delivery whose endpoint was deleted is refused, and nothing is sent', async () => {
    const receiver = await startReceiver();
    const s = await storeWithEndpoint(receiver.url());
    await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 'cli-wh-2', totals: { total: 5 } },
    });
    await finished(s.store.id, 1);
    const [row] = JSON.parse((await admin('webhooks', 'deliveries', '--store', s.store.id, '--json')).stdout).deliveries;
    await t.request({ method: 'DELETE', url: `/api/v1/webhooks/${s.endpoint.id}`, headers: bearer(s.admin) });
    const run = await admin('webhooks', 'replay', '--delivery', row.id, '--json');
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toMatch(/endpoint was deleted/);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  }, 60_000);

  it('bad command lines and unknown ids are errors on stderr with an empty stdout', async () => {
    const cases: [string[], number, RegExp][] = [
      [['webhooks', 'replay', '--delivery', crypto.randomUUID(), '--json'], 1, /no delivery/],
      [['webhooks', 'replay', '--json'], 2, /--delivery is required/],
      [['webhooks', 'deliveries', '--store', 'nope', '--json'], 2, /--store must be a store id/],
      [['webhooks', 'deliveries', '--store', crypto.randomUUID(), '--json'], 1, /no store/],
      [['webhooks', 'deliveries', '--store', crypto.randomUUID(), '--limit', '0', '--json'], 2, /--limit/],
    ];
    const runs = await Promise.all(cases.map(([args]) => admin(...args)));
    for (const [i, [args, code, message]] of cases.entries()) {
      expect([runs[i]!.code, runs[i]!.stdout], args.join(' ')).toEqual([code, '']);
      expect(runs[i]!.stderr).toMatch(message);
    }
  }, 60_000);
});
