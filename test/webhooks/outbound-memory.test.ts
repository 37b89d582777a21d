// A webhook body can be close to 1 MB; a finished POST must not stay reachable until its timeout fires,
// nor leave its deadline's timer to fire later.
import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOnce, type OutboundPost } from '../../services/outbound/send.js';
import { startReceiver } from '../helpers/receiver.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('a finished POST is released at once', () => {
  it('is not held by its (still pending) timeout', async () => {
    let request: OutboundPost | undefined = {
      url: receiver.url(),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'x'.repeat(100_000) }),
      // Far longer than the test: anything holding the request until the timeout fires keeps it alive here.
      timeoutMs: 60_000,
      policy: { allowLoopback: true },
    };
    const sent = new WeakRef(request);
    const result = await postOnce(request);
    expect(result.ok).toBe(true);
    // eslint-disable-next-line no-useless-assignment -- dropping the last reference is what the test needs
    request = undefined;
    // Let the socket close and its callbacks run before collecting.
    for (let i = 0; i < 20 && sent.deref(); i++) {
      await new Promise((r) => setTimeout(r, 50));
      gc();
    }
    expect(sent.deref() === undefined, 'the finished request is still reachable').toBe(true);
  });

  it("drops its deadline's timer when it ends (AbortSignal.timeout's fired 8 s after every answer)", async () => {
    // A timeout no other timer of the exchange has: its Timeout resources are the deadline's.
    const timeoutMs = 61_234;
    const live = new Set<number>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === timeoutMs) live.add(id);
      },
      destroy(id) {
        live.delete(id);
      },
    }).enable();
    try {
      const result = await postOnce({ url: receiver.url(), headers: {}, body: '{}', timeoutMs, policy: { allowLoopback: true } });
      expect(result.ok).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      expect(live.size, 'deadline timers still pending after the POST ended').toBe(0);
    } finally {
      hook.disable();
    }
  });
});
