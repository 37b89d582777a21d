import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { calmIdle, idleCpu, MIN_IDLE_WINDOWS } from '../../bench/lib/many-stores.js';

// The idle CPU every webhook figure subtracts (bench/README.md, "CPU"): the busiest fifth of the one-second
// windows is left out. Quick runs asked for 3 windows, of which a fifth is none, so one busy second was
// subtracted over the whole phase (a tail run read the worker's share as 0 ms per delivery).
describe('idle CPU of the webhook figures', () => {
  it('leaves the busiest fifth of the windows out, at least one', () => {
    expect(calmIdle([{ worker: 10 }, { worker: 60 }, { worker: 10 }])).toEqual({ worker: 10 });
    expect(calmIdle([{ worker: 10 }, { worker: 330 }, { worker: 10 }, { worker: 20 }, { worker: 30 }])).toEqual({ worker: 17.5 });
    // Ten windows: the two busiest out, the mean of the other eight.
    const ten = [5, 5, 5, 5, 10, 10, 10, 10, 200, 300].map((ms) => ({ api: ms }));
    expect(calmIdle(ten)).toEqual({ api: 7.5 });
    expect(calmIdle([{ api: 40 }])).toEqual({ api: 40 });
  });

  it(`measures a process busy for one second in ${MIN_IDLE_WINDOWS} as idle, even when asked for 3 windows`, async () => {
    // Asleep, but for 300 ms of CPU once, 1.2 s in: a collection or a lane's end in a real idle.
    const child = spawn(process.execPath, [
      '-e',
      'setTimeout(() => { const t = Date.now(); while (Date.now() - t < 300); }, 1200); setTimeout(() => {}, 20000);',
    ]);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      const idle = await idleCpu({ child: () => [child.pid!] }, 3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(MIN_IDLE_WINDOWS * 1000 - 50);
      // The busy window left out, the idle reads near 0 (a tick is 10 ms); with it, about 100 ms/s.
      expect(idle.child).toBeLessThan(30);
    } finally {
      child.kill();
    }
  }, 20_000);
});
