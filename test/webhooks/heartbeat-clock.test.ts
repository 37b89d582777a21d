// The dispatchers' heartbeat clock: every run of a process beats on the same wall-clock ticks, so the
// runs of a worker that died have the same last heartbeat and time out together (the SIGKILL test of
// test/topology shows the whole of it). On a fake clock: the rule is about instants, not durations.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { onClockTicks } from '../../activities/lane-lease.js';

const PERIOD = 3333;

describe('onClockTicks', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000_123, toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('runs started at different moments beat at the same instants, the multiples of the period', () => {
    const beats: Record<string, number[]> = { a: [], b: [] };
    const stopA = onClockTicks(PERIOD, () => beats.a!.push(Date.now()));
    vi.advanceTimersByTime(1234);
    const stopB = onClockTicks(PERIOD, () => beats.b!.push(Date.now()));
    vi.advanceTimersByTime(4 * PERIOD);
    stopA();
    stopB();
    expect(beats.a!.length).toBeGreaterThanOrEqual(4);
    for (const t of [...beats.a!, ...beats.b!]) expect(t % PERIOD).toBe(0);
    // B started later: its beats are A's from its first on.
    expect(beats.b).toEqual(beats.a!.filter((t) => t >= beats.b![0]!));
  });

  it('a beat held up past the next tick does not beat twice to catch up, and stopping ends the beats', () => {
    const beats: number[] = [];
    const stop = onClockTicks(PERIOD, () => {
      beats.push(Date.now());
      // The first beat is held up (a busy event loop) for a period and a half.
      if (beats.length === 1) vi.setSystemTime(Date.now() + 1.5 * PERIOD);
    });
    vi.advanceTimersByTime(3 * PERIOD);
    expect(beats.length).toBeGreaterThanOrEqual(2);
    for (const t of beats.slice(1)) expect(t % PERIOD).toBe(0);
    for (let i = 1; i < beats.length; i++) expect(beats[i]! - beats[i - 1]!).toBeGreaterThanOrEqual(PERIOD);
    stop();
    const count = beats.length;
    vi.advanceTimersByTime(5 * PERIOD);
    expect(beats).toHaveLength(count);
  });
});
