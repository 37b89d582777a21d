// An endpoint's circuit as the owner sees it (docs/webhooks.md "Circuit breaker"): when consecutive attempts
// fail, the dispatcher keeps "open since" on the endpoint's row and the dashboard says the endpoint is not
// answering; when a probe succeeds the row is cleared and the notice goes. The test worker opens a circuit
// after 3 failures and probes after a 2 s cool-down (test/global-setup.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageClient } from '../dashboard/client.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';

let t: TestApp;
let down = true;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp();
  // Answers 503 (a failure for the circuit) while `down`, then 200.
  receiver = await startReceiver((_r, res) => {
    res.statusCode = down ? 503 : 200;
    res.end(down ? 'down' : 'ok');
  });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const sql = <T>(text: string, params: unknown[] = []) => t.orm.em.fork().execute<T[]>(text, params);
type Circuit = { circuit_open_since: Date | null; circuit_failed_at: Date | null };
const circuitOf = async (endpointId: string) =>
  (await sql<Circuit>('select circuit_open_since, circuit_failed_at from webhook_endpoints where id = ?', [endpointId]))[0]!;

describe('a dead endpoint is shown to its owner until it answers again', () => {
  it('three failed attempts open the circuit on the endpoint’s row and the dashboard says so; a successful probe clears both', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const storeId = await c.createStore();
    const page = `/dashboard/stores/${storeId}/webhooks`;
    const added = await c.post(page, { url: receiver.url('/hook'), events: ['order.created'] }, { from: page });
    expect(added.statusCode, added.body).toBe(200);
    const endpointId = (await sql<{ id: string }>('select id from webhook_endpoints where store_id = ?', [storeId]))[0]!.id;
    const key = (await addKey(t.orm, storeId, { kind: 'secret', scopes: ['orders:write'] })).key;
    const post = async (externalId: string) => {
      const r = await t.request({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(key),
        payload: { external_id: externalId, totals: { total: 1 } },
      });
      expect(r.statusCode, r.body).toBe(201);
    };

    expect((await c.get(page)).body).not.toContain(`id="circuit-${endpointId}"`);
    for (const id of ['c-1', 'c-2', 'c-3']) await post(id);
    await eventually(async () => (await circuitOf(endpointId)).circuit_open_since !== null, 20_000, 'the circuit kept open on the row');
    const open = await circuitOf(endpointId);
    expect(open.circuit_failed_at).not.toBeNull();
    const shown = (await c.get(page)).body;
    expect(shown).toContain(`id="circuit-${endpointId}"`);
    expect(shown).toContain('Not answering');
    expect(shown).toMatch(/tried every \d+ (seconds|minutes) until it answers/);

    // The receiver is back: the next delivery waits out the cool-down, goes as the probe, and closes the circuit.
    down = false;
    const before = receiver.received.length;
    await post('c-4');
    await eventually(async () => (await circuitOf(endpointId)).circuit_open_since === null, 20_000, 'the circuit closed on the row');
    expect(await circuitOf(endpointId)).toEqual({ circuit_open_since: null, circuit_failed_at: null });
    expect(receiver.received.slice(before).some((r) => JSON.parse(r.body).data?.order?.external_id === 'c-4')).toBe(true);
    expect((await c.get(page)).body).not.toContain(`id="circuit-${endpointId}"`);
  });
});
