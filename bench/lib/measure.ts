import { measureCpu, type CpuGroups } from './cpu.js';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { fmt, median } from './stats.js';

/** A load run with the CPU milliseconds each accounted process group used during it. */
export type Measured = LoadResult & { cpuMs: Record<string, number> };

/**
 * Runs a load while accounting the CPU of the given processes; `then` (e.g. waiting for queued work to
 * drain) is accounted too, so that work a request leaves behind counts against it.
 */
export async function measure(groups: CpuGroups, opts: LoadOptions, then?: () => Promise<unknown>): Promise<Measured> {
  const { result, cpuMs } = await measureCpu(groups, async () => {
    const load = await runLoad(opts);
    await then?.();
    return load;
  });
  return { ...result, cpuMs };
}

/** "api 0.41 + postgres 0.62 = 1.03 ms": median over runs of CPU per 2xx request, by process group. */
export function cpuPerRequestText(runs: Measured[]): string {
  const names = Object.keys(runs[0]?.cpuMs ?? {});
  const perGroup = names.map((name) => [name, median(runs.map((r) => r.cpuMs[name]! / Math.max(1, r.ok)))] as const);
  const total = median(runs.map((r) => Object.values(r.cpuMs).reduce((a, b) => a + b, 0) / Math.max(1, r.ok)));
  return `${perGroup.map(([name, v]) => `${name} ${fmt(v)}`).join(' + ')} = ${fmt(total)} ms`;
}
