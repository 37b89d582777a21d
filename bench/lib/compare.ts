import { fmt } from './stats.js';

export interface AlternateSpec<M> {
  /** Scenario id, for progress lines. */
  id: string;
  rounds: number;
  /** Unit shown in progress lines ("req/s", "ms p99"). */
  unit: string;
  /** Labels of the two sides; default ours / baseline. */
  labels?: [string, string];
  ours: (round: number) => Promise<M>;
  baseline: (round: number) => Promise<M>;
  /** The figure compared (req/s, p99 ms, …). */
  value: (m: M) => number;
  /** Extra words for the progress line (e.g. the non-2xx count). */
  detail?: (ours: M, baseline: M) => string;
  /** Runs before every measurement: let queues drain so that neither side pays for the other. */
  settle?: () => Promise<unknown>;
  log: (line: string) => void;
}

export interface AlternateRuns<M> {
  ours: M[];
  baseline: M[];
}

/**
 * Measures ours and the baseline alternately, A B A B, one pair per round, printing each round as it
 * ends. Alternation spreads the machine's drift (other jobs, thermal, caches) over both sides.
 */
export async function alternate<M>(spec: AlternateSpec<M>): Promise<AlternateRuns<M>> {
  const [a, b] = spec.labels ?? ['ours', 'baseline'];
  const runs: AlternateRuns<M> = { ours: [], baseline: [] };
  for (let round = 1; round <= spec.rounds; round++) {
    await spec.settle?.();
    const ours = await spec.ours(round);
    await spec.settle?.();
    const baseline = await spec.baseline(round);
    runs.ours.push(ours);
    runs.baseline.push(baseline);
    const [x, y] = [spec.value(ours), spec.value(baseline)];
    const detail = spec.detail ? `; ${spec.detail(ours, baseline)}` : '';
    spec.log(
      `${spec.id} round ${round}/${spec.rounds}: ${a} ${fmt(x)} ${spec.unit}, ${b} ${fmt(y)} ${spec.unit} (ratio ${fmt(x / y)})${detail}`,
    );
  }
  return runs;
}
