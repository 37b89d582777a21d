import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Processes to account for, by name; resolved at each snapshot because backends come and go. */
export type CpuGroups = Record<string, () => number[]>;

function ticks(pid: number): number {
  try {
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** PostgreSQL backends serving one database (their process title names it), except `exclude` (the harness's own). */
export function postgresBackends(database: string, exclude: ReadonlySet<number> = new Set()): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres:') && title.includes(` ${database} `) && !exclude.has(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Processes whose command line contains every one of the given parts (e.g. the Temporal server on its port). */
export function processesMatching(...parts: string[]): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return parts.every((p) => cmd.includes(p));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** How often process times are sampled: a backend that exits between samples loses at most this much. */
const SAMPLE_MS = 250;

type Seen = Record<string, Map<number, { first: number; last: number }>>;

function sample(groups: CpuGroups, seen: Seen, initial: boolean): void {
  for (const [name, pids] of Object.entries(groups)) {
    const map = (seen[name] ??= new Map());
    for (const pid of pids()) {
      const t = ticks(pid);
      const entry = map.get(pid);
      // A process first seen after the start is counted from its birth (it was created by the load).
      if (!entry) map.set(pid, { first: initial ? t : 0, last: t });
      else if (t > entry.last) entry.last = t;
    }
  }
}

/**
 * Runs `fn` and returns the CPU milliseconds each group of processes used meanwhile (Linux /proc;
 * zero elsewhere). Sampled every 250 ms so that pooled connections closing midway still count.
 */
export async function measureCpu<T>(groups: CpuGroups, fn: () => Promise<T>): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const seen: Seen = {};
  sample(groups, seen, true);
  const timer = setInterval(() => sample(groups, seen, false), SAMPLE_MS);
  try {
    const result = await fn();
    sample(groups, seen, false);
    const cpuMs: Record<string, number> = {};
    for (const [name, pids] of Object.entries(seen)) {
      let used = 0;
      for (const { first, last } of pids.values()) used += last - first;
      cpuMs[name] = (used * 1000) / TICKS_PER_SECOND;
    }
    return { result, cpuMs };
  } finally {
    clearInterval(timer);
  }
}
