// The contract in workflows/catalog.ts: every definition names a workflow the worker runs, the names
// on the wire never change (outbox rows and running workflows of earlier versions carry them), and a
// row written the old way is still handed over and its signal arrives.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as registered from '../../workflows/index.js';
import { connectCodeExchanged, replayUpdates, updatesQueued } from '../../workflows/connections/definitions.js';
import { deliveriesWaiting } from '../../workflows/webhooks/definitions.js';
import { liftLockout, trackingLockoutState, wrongContactTried } from '../../workflows/tracking/definitions.js';
import { planEndChanged } from '../../workflows/plans/definitions.js';
import { signalWithStart, startWorkflow } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore } from '../helpers/store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('every workflow definition is a workflow of the worker, under the same name', () => {
  it('each definition names a function exported by workflows/index.ts, and each export has a definition', () => {
    const exported = Object.entries(registered)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect(
      Object.values(workflows)
        .map((w) => w.name)
        .sort(),
    ).toEqual(exported.sort());
  });

  it('the names on the wire stay what earlier versions wrote', () => {
    expect(Object.fromEntries(Object.entries(workflows).map(([key, w]) => [key, w.name]))).toEqual({
      webhookLane: 'webhookLaneWorkflow',
      webhookDispatch: 'webhookDispatchWorkflow',
      webhookDelivery: 'webhookDeliveryWorkflow',
      connectCode: 'connectCodeWorkflow',
      connectionPush: 'connectionPushWorkflow',
      checkoutExpiry: 'checkoutExpiryWorkflow',
      trackingLockout: 'trackingLockoutWorkflow',
      housekeeping: 'housekeepingWorkflow',
      planEnd: 'planEndWorkflow',
      orderPush: 'orderPushWorkflow',
      orderChat: 'orderChatWorkflow',
    });
    expect(
      [deliveriesWaiting, connectCodeExchanged, updatesQueued, replayUpdates, wrongContactTried, liftLockout].map((s) => s.name),
    ).toEqual(['deliveriesWaiting', 'connectCodeExchanged', 'updatesQueued', 'replayUpdates', 'wrongContact', 'liftLockout']);
    expect(trackingLockoutState.name).toBe('lockoutState');
    expect(planEndChanged.name).toBe('planEndChanged');
  });

  it('the helpers write the definition’s names and the arguments as given', () => {
    const state = { wrongCount: 1, lockedUntil: null, expiresAt: '2026-01-01T00:00:00.000Z' };
    const input = { storeId: 's', orderKey: '7', lockoutSeconds: 60 };
    expect(
      signalWithStart(workflows.trackingLockout, {
        workflowId: 'w',
        args: [input],
        signal: wrongContactTried,
        signalArgs: [state],
        searchAttributes: { StoreId: 's' },
      }),
    ).toEqual({
      workflowType: 'trackingLockoutWorkflow',
      workflowId: 'w',
      args: [input],
      signal: { name: 'wrongContact', args: [state] },
      searchAttributes: { StoreId: 's' },
    });
    expect(
      startWorkflow(workflows.connectCode, {
        workflowId: 'c',
        args: [{ codeId: 'c', storeId: 's', ttlMs: 1 }],
        searchAttributes: {},
        summary: 'x',
      }),
    ).toEqual({
      workflowType: 'connectCodeWorkflow',
      workflowId: 'c',
      args: [{ codeId: 'c', storeId: 's', ttlMs: 1 }],
      searchAttributes: {},
      summary: 'x',
    });
  });
});

describe('an outbox row written by the previous version is still handed over', () => {
  it('a wrongContact signal-with-start row starts the lockout workflow, and the signal’s state arrives', async () => {
    const s = await createTestStore(t.orm);
    const orderKey = `OLD-${randomUUID().slice(0, 8)}`;
    const workflowId = workflowIds.trackingLockout(s.store.id, orderKey);
    const state = { wrongCount: 2, lockedUntil: null, expiresAt: new Date(Date.now() + 600_000).toISOString() };
    // The row exactly as the version before typed hand-offs wrote it (names as strings).
    await t.orm.em.fork().execute(
      `insert into outbox (action, workflow_type, workflow_id, args, signal_name, signal_args, search_attributes, summary)
       values ('signal_with_start', 'trackingLockoutWorkflow', ?, ?::jsonb, 'wrongContact', ?::jsonb, ?::jsonb, 'written by the previous version')`,
      [
        workflowId,
        JSON.stringify([{ storeId: s.store.id, orderKey, lockoutSeconds: 600 }]),
        JSON.stringify([state]),
        JSON.stringify({ StoreId: s.store.id }),
      ],
    );
    const handle = t.temporal.client.workflow.getHandle(workflowId);
    await eventually(
      async () => (await handle.query(trackingLockoutState).catch(() => null))?.wrongCount === 2,
      20_000,
      'the relay started the workflow and the signal arrived',
    );
    expect(await handle.query(trackingLockoutState)).toEqual({ ...state, lifted: false });
    await handle.signal(liftLockout);
    await handle.result();
  });
});
