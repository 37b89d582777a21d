import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { CONTRACT_METRICS, fmt, type ScenarioResult } from './stats.js';

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
  scenarios: Record<string, ScenarioEntry>;
  /** The memory scenarios (heap_mb, rss_mb): kept out of `scenarios`, whose metrics CONTRACT.md fixes. */
  memory: Record<string, ScenarioEntry>;
}

const failed = (r: ScenarioEntry): r is ScenarioFailure => 'error' in r;
const isMemory = (id: string, r: ScenarioEntry) => (failed(r) ? MEMORY_SCENARIOS.includes(id) : !CONTRACT_METRICS.includes(r.metric));

/** The report in the shape of CONTRACT.md "Benchmark output", plus the memory scenarios beside it. */
export function buildReport(quick: boolean, results: Record<string, ScenarioEntry>): BenchReport {
  const scenarios: Record<string, ScenarioEntry> = {};
  const memory: Record<string, ScenarioEntry> = {};
  for (const [id, r] of Object.entries(results)) (isMemory(id, r) ? memory : scenarios)[id] = r;
  return { generated_at: new Date().toISOString(), node: process.version, cpus: availableParallelism(), quick, scenarios, memory };
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
  );
  return out.join('\n');
}
