import type { BenchEnv } from './environment.js';
import type { ScenarioResult } from './stats.js';

/** One benchmark scenario: its id in bench/results/latest.json and how to measure it in a prepared environment. */
export interface Scenario {
  id: string;
  run(env: BenchEnv): Promise<ScenarioResult>;
}

/** Connections for saturating runs (issue 2: /me under 50 concurrent connections). */
export const SATURATION_CONNECTIONS = 50;
