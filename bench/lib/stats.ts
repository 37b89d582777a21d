/** The metrics of CONTRACT.md "Benchmark output". */
export const CONTRACT_METRICS: readonly string[] = ['req_per_s', 'p99_ms', 'p50_ms', 'per_s'];
/**
 * The many-store webhook day's own units (issue 22): p99.9 ms, Temporal history events per order, ms of CPU
 * per delivery, a plain duration in ms (cold start), and a count of rows (the soak's dead tuples). Reported under "scenarios" like CONTRACT.md's.
 */
export const DAY_METRICS: readonly string[] = ['p999_ms', 'events_per_order', 'cpu_ms', 'ms', 'rows'];
/** The memory scenarios' metrics: reported under "memory". */
export const MEMORY_METRICS: readonly string[] = ['heap_mb', 'rss_mb'];
/** A scenario's metric: CONTRACT.md's, the day's, or heap_mb / rss_mb of the memory scenarios (megabytes, lower is better; reported apart). */
export type Metric =
  'req_per_s' | 'p99_ms' | 'p50_ms' | 'per_s' | 'p999_ms' | 'events_per_order' | 'cpu_ms' | 'ms' | 'rows' | 'heap_mb' | 'rss_mb';

export interface ScenarioResult {
  metric: Metric;
  ours: number;
  baseline: number;
  /** Median of the per-round ratios ours ÷ baseline. */
  ratio: number;
  rounds: number[];
  notes: string;
}

/** The middle value (mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Least-squares slope of y over x (NaN for fewer than two distinct x). */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  return n >= 2 && sxx > 0 ? sxy / sxx : Number.NaN;
}

/** Rounds to a number of decimals (JSON-friendly; NaN stays NaN). */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** A human figure: integers above 100, else 3 significant digits. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? Math.round(value).toString() : Number(value.toPrecision(3)).toString();
}

/** Summarises paired per-round values into the contract's shape. */
export function summarize(metric: Metric, ours: number[], baseline: number[], notes: string): ScenarioResult {
  const ratios = ours.map((o, i) => o / baseline[i]!);
  return {
    metric,
    ours: round(median(ours), 1),
    baseline: round(median(baseline), 1),
    ratio: round(median(ratios), 3),
    rounds: ratios.map((r) => round(r, 3)),
    notes,
  };
}
