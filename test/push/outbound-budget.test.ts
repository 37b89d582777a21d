// Each store's turns on the outbound worker, and the cool-down of targets that give no answer.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { STORE_OUTBOUND_BUSY, StoreOutboundBudget, TargetCircuit } from '../../activities/outbound/budget.js';

describe('a store’s outbound turns', () => {
  it('past its turns a send fails at once with the retryable StoreOutboundBusy, another store is not counted, and a turn comes back when a send ends or throws', async () => {
    const budget = new StoreOutboundBudget(2);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const running = [budget.run('a', () => held), budget.run('a', () => held)];
    const refused = await budget.run('a', async () => 'sent').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: STORE_OUTBOUND_BUSY, nonRetryable: false });
    expect((refused as ApplicationFailure).nextRetryDelay).toBeGreaterThanOrEqual(1000);
    expect(await budget.run('b', async () => 'sent')).toBe('sent');
    release();
    await Promise.all(running);
    expect(budget.inFlightOf('a')).toBe(0);
    await expect(budget.run('a', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(budget.inFlightOf('a')).toBe(0);
  });
});

describe('targets that give no answer cool down', () => {
  it('no answer opens the circuit for the cool-down, an answer of any status closes it, and it opens no other target', () => {
    const circuit = new TargetCircuit(60_000);
    const t0 = 1_000_000;
    circuit.record('store device-1', false, t0);
    expect(circuit.isOpen('store device-1', t0 + 59_000)).toBe(true);
    expect(circuit.isOpen('store device-2', t0 + 1)).toBe(false);
    expect(circuit.isOpen('store device-1', t0 + 60_001)).toBe(false);
    circuit.record('store device-1', false, t0);
    circuit.record('store device-1', true, t0 + 10);
    expect(circuit.isOpen('store device-1', t0 + 20)).toBe(false);
  });
});
