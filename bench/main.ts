// The harness behind `npm run bench` (every scenario, three rounds) and `npm run bench:quick` (one short round):
// brings everything up for real, measures ours against baselines side by side, prints a table and
// writes bench/results/latest.json (CONTRACT.md, "Benchmark output"). See bench/README.md.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { cleanup, installExitHandlers, isStopping } from './lib/cleanup.js';
import { setUp } from './lib/environment.js';
import { checkpoint } from './lib/database.js';
import { repoRoot } from './lib/processes.js';
import { buildReport, formatTable, writeReport, type ScenarioEntry } from './lib/report.js';
import type { Scenario } from './lib/scenario.js';
import { calibrationScenario } from './scenarios/calibration.js';
import { meScenario } from './scenarios/me.js';
import { ordersListP99Scenario } from './scenarios/orders-list-p99.js';
import { ordersUpsertScenario } from './scenarios/orders-upsert.js';
import { ordersUpsertSmallScenario } from './scenarios/orders-upsert-small.js';
import { ordersUpsert200Scenario } from './scenarios/orders-upsert-200.js';
import { ordersBatchScenario } from './scenarios/orders-batch.js';
import { productsListP99Scenario } from './scenarios/products-list-p99.js';
import { checkoutSessionsScenario } from './scenarios/checkout-sessions.js';
import { trackingP99Scenario } from './scenarios/tracking-p99.js';
import { pushE2eP99Scenario } from './scenarios/push-e2e-p99.js';
import { webhookE2eP50Scenario, webhookE2eP99Scenario, webhookThroughputScenario } from './scenarios/webhooks.js';
import {
  webhookBadNeighboursP99Scenario,
  webhookBadNeighboursP99TemporalPgScenario,
  webhookTailCpuScenario,
  webhookTailEventsScenario,
  webhookTailP50Scenario,
  webhookTailP999Scenario,
  webhookTailP99Scenario,
  webhookTailP99TemporalPgScenario,
  webhookTlsP50Scenario,
} from './scenarios/webhook-day.js';
import {
  coldStartNewStoreScenario,
  coldStartScenario,
  coldStartWorkerScenario,
  webhookDrainScenario,
  webhookSustainedScenario,
} from './scenarios/webhook-load.js';
import { apiMemoryScenario } from './scenarios/api-memory.js';
import { rss1mbBodiesScenario } from './scenarios/rss-1mb-bodies.js';
import { soakScenarios } from './scenarios/soak.js';
import { apiMixedScenario } from './scenarios/api-mixed.js';

/** Every scenario, in the order they run. */
const SCENARIOS: Scenario[] = [
  calibrationScenario,
  meScenario,
  ordersUpsertSmallScenario,
  ordersUpsertScenario,
  ordersListP99Scenario,
  ordersUpsert200Scenario,
  ordersBatchScenario,
  productsListP99Scenario,
  checkoutSessionsScenario,
  trackingP99Scenario,
  webhookE2eP50Scenario,
  webhookE2eP99Scenario,
  webhookThroughputScenario,
  pushE2eP99Scenario,
  // The many-store day (issue 22): one round each, also in the full run (bench/README.md).
  webhookTailP50Scenario,
  webhookTailP99Scenario,
  webhookTailP999Scenario,
  webhookTailEventsScenario,
  webhookTailCpuScenario,
  webhookBadNeighboursP99Scenario,
  webhookSustainedScenario,
  webhookDrainScenario,
  webhookTlsP50Scenario,
  coldStartScenario,
  coldStartWorkerScenario,
  coldStartNewStoreScenario,
  webhookTailP99TemporalPgScenario,
  webhookBadNeighboursP99TemporalPgScenario,
  // The mixed many-store API load (issue 25): 1,000 stores and 1 M orders, open-loop steps.
  apiMixedScenario,
  // Each on a fresh API process of its own, so its memory is the scenario's alone.
  apiMemoryScenario,
  rss1mbBodiesScenario,
  ...soakScenarios,
];

const log = (line: string) => console.log(`[bench] ${line}`);

/** The scenarios (memory ones included) of the last latest.json (none when there is no readable one). */
function earlierResults(path: string): Record<string, ScenarioEntry> {
  try {
    const earlier = JSON.parse(readFileSync(path, 'utf8')) as {
      scenarios?: Record<string, ScenarioEntry>;
      memory?: Record<string, ScenarioEntry>;
    };
    return { ...earlier.scenarios, ...earlier.memory };
  } catch {
    return {};
  }
}

/** A list option given as `--name=a,b` or `--name a,b` (undefined when absent). */
function listArg(argv: string[], name: string): string[] | undefined {
  const spaced = argv.indexOf(`--${name}`);
  const value = argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? (spaced >= 0 ? argv[spaced + 1] : undefined);
  return value?.split(',').filter(Boolean);
}

function parseArgs(argv: string[]) {
  const quick = argv.includes('--quick');
  const only = listArg(argv, 'only');
  // --skip: every scenario but these (e.g. a full run without one long scenario); with --only, skips among those.
  const skip = listArg(argv, 'skip') ?? [];
  const unknown = [...(only ?? []), ...skip].filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  const scenarios = SCENARIOS.filter((s) => (!only || only.includes(s.id)) && !skip.includes(s.id));
  return {
    quick,
    profile: argv.includes('--profile'),
    // A partial run keeps the figures of the scenarios it did not run from the last latest.json.
    partial: scenarios.length < SCENARIOS.length,
    skipped: skip,
    scenarios,
  };
}

async function main(): Promise<number> {
  const { quick, profile, scenarios, partial, skipped } = parseArgs(process.argv.slice(2));
  installExitHandlers(log);
  const started = Date.now();
  log(
    `${quick ? 'quick run: 1 short round' : 'full run: 3 rounds'} of ${scenarios.map((s) => s.id).join(', ')}` +
      (skipped.length ? ` (skipped: ${skipped.join(', ')})` : ''),
  );
  const path = resolve(repoRoot, 'bench', 'results', 'latest.json');
  let env: Awaited<ReturnType<typeof setUp>>;
  try {
    env = await setUp({ quick, profile, log });
  } catch (err) {
    if (isStopping()) return cleanup(log).then(() => 130);
    // Nothing could run: every scenario is written with the reason, none left out.
    const reason = `set-up failed: ${(err as Error).message ?? String(err)}`;
    log(`${reason}\n${(err as Error).stack ?? ''}`);
    writeReport(path, buildReport(quick, Object.fromEntries(scenarios.map((s) => [s.id, { error: reason }]))));
    await cleanup(log);
    return 1;
  }
  const results: Record<string, ScenarioEntry> = {};
  // Wall seconds of the set-up and of each scenario, printed at the end: where a run's time went.
  const wall: [string, number][] = [['set-up', (Date.now() - started) / 1000]];
  let failures = 0;
  for (const scenario of scenarios) {
    const t0 = Date.now();
    log(`${scenario.id}: starting (${await checkpoint(env.pool)})`);
    try {
      results[scenario.id] = await scenario.run(env);
      const r = results[scenario.id]!;
      log(
        `${scenario.id}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s${'ours' in r ? `: ours ${r.ours} ${r.metric}, baseline ${r.baseline}` : ''}`,
      );
    } catch (err) {
      if (isStopping()) return cleanup(log).then(() => 130);
      failures++;
      log(`${scenario.id}: FAILED: ${(err as Error).stack ?? String(err)}`);
      results[scenario.id] = { error: (err as Error).message ?? String(err) };
    }
    wall.push([scenario.id, (Date.now() - t0) / 1000]);
  }
  // With --only or --skip, the scenarios not run keep their last figures in latest.json.
  const report = buildReport(quick, partial ? { ...earlierResults(path), ...results } : results, env.where);
  writeReport(path, report);
  console.log(`\n${formatTable(report)}\n`);
  log(`wall time: ${wall.map(([id, sec]) => `${id} ${sec.toFixed(0)} s`).join(', ')}`);
  log(`wrote ${path} in ${((Date.now() - started) / 1000).toFixed(0)} s total; stopping everything …`);
  await cleanup(log);
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: Error) => {
    // After Ctrl-C failures are expected (everything is being stopped): wait for the cleanup quietly.
    const interrupted = isStopping();
    if (!interrupted) log(`failed: ${err.stack ?? err.message}`);
    await cleanup(log);
    process.exit(interrupted ? 130 : 1);
  },
);
