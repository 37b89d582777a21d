import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { MEMORY_METRICS, fmt, type ScenarioResult } from './stats.js';

/** A scenario that could not run: written with the reason instead of figures, never left out (CONTRACT.md). */
export interface ScenarioFailure {
  error: string;
}
export type ScenarioEntry = ScenarioResult | ScenarioFailure;

/** The scenarios whose metrics are heap_mb / rss_mb: they go under "memory", also when they failed. */
export const MEMORY_SCENARIOS: readonly string[] = ['api-memory', 'rss-1mb-bodies'];

export interface BenchReport {
  generated_at: string;
  node: string;
  cpus: number;
  quick: boolean;
  /** The machine: host name, CPU model, kernel, memory. */
  host: string;
  /** Where PostgreSQL and Temporal ran, with their versions ("unknown" when set-up failed before knowing). */
  postgres: string;
  temporal: string;
  /** Whether the ratios may be read at all: only when calibration is within 0.9–1.1. */
  verdict: string;
  scenarios: Record<string, ScenarioEntry>;
  /** The memory scenarios (heap_mb, rss_mb): kept out of `scenarios`, whose metrics CONTRACT.md fixes. */
  memory: Record<string, ScenarioEntry>;
}

const failed = (r: ScenarioEntry): r is ScenarioFailure => 'error' in r;
const isMemory = (id: string, r: ScenarioEntry) => (failed(r) ? MEMORY_SCENARIOS.includes(id) : MEMORY_METRICS.includes(r.metric));

/** Calibration (bare Fastify ÷ bare node:http) outside this band means the machine skews the ratios: no verdict then. */
export const CALIBRATION_BAND = [0.9, 1.1] as const;

/** The verdict line: refused unless calibration ran and its ratio is within 0.9–1.1. */
export function verdictOf(results: Record<string, ScenarioEntry>): string {
  const c = results.calibration;
  if (!c) return 'no verdict: calibration did not run';
  if (failed(c)) return `no verdict: calibration could not run (${c.error})`;
  const [lo, hi] = CALIBRATION_BAND;
  return c.ratio >= lo && c.ratio <= hi
    ? `calibration ${c.ratio} is within ${lo}–${hi}: the ratios may be read`
    : `NO VERDICT: calibration ${c.ratio} is outside ${lo}–${hi} (the machine skews the comparison); read no ratio of this run as a result`;
}

/** The report in the shape of CONTRACT.md "Benchmark output", plus the memory scenarios beside it and where it ran. */
export function buildReport(
  quick: boolean,
  results: Record<string, ScenarioEntry>,
  where: { postgres: string; temporal: string } = { postgres: 'unknown', temporal: 'unknown' },
): BenchReport {
  const scenarios: Record<string, ScenarioEntry> = {};
  const memory: Record<string, ScenarioEntry> = {};
  for (const [id, r] of Object.entries(results)) (isMemory(id, r) ? memory : scenarios)[id] = r;
  const host = `${hostname()}: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cpus, ${Math.round(totalmem() / 2 ** 30)} GB, Linux ${release()}`;
  return {
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    quick,
    host,
    postgres: where.postgres,
    temporal: where.temporal,
    verdict: verdictOf(results),
    scenarios,
    memory,
  };
}

/** Writes the report as pretty JSON (creating the folder). */
export function writeReport(path: string, report: BenchReport): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/** The terminal table: one row per scenario, then the notes. */
export function formatTable(report: BenchReport): string {
  const head = ['scenario', 'metric', 'ours', 'baseline', 'ratio', 'min–max', 'rounds'];
  const all = { ...report.scenarios, ...report.memory };
  const rows = Object.entries(all).map(([id, s]) =>
    failed(s)
      ? [id, 'error', '', '', '', '', '']
      : [
          id,
          s.metric,
          fmt(s.ours),
          fmt(s.baseline),
          s.ratio.toFixed(2),
          `${Math.min(...s.rounds).toFixed(2)}–${Math.max(...s.rounds).toFixed(2)}`,
          s.rounds.map((r) => r.toFixed(2)).join(' '),
        ],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''];
  for (const [id, s] of Object.entries(all)) out.push(`${id}: ${failed(s) ? `could not run: ${s.error}` : s.notes}`);
  out.push(
    '',
    `node ${report.node}, ${report.cpus} cpus, ${report.quick ? 'quick (1 short round)' : 'full (3 rounds)'}, ${report.generated_at}`,
    `host ${report.host}`,
    `${report.postgres}`,
    `${report.temporal}`,
    report.verdict,
  );
  return out.join('\n');
}
