import { alternate } from '../lib/compare.js';
import { cpuPerRequestText, measure, type Measured } from '../lib/measure.js';
import type { RunningProcess } from '../lib/processes.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';
import { summarize } from '../lib/stats.js';
import { fetchMeBody } from './me.js';

/** Bare Fastify vs bare node:http answering the same JSON: near 1 means the run itself is sound. */
export const calibrationScenario: Scenario = {
  id: 'calibration',
  async run(env) {
    const body = await fetchMeBody(env);
    const fastify = await env.startBaseline('bare-fastify', { BODY_JSON: body });
    const http = await env.startBaseline('bare-http', { BODY_JSON: body });
    try {
      const load = (server: { url: string; process: RunningProcess }, durationSec: number) =>
        measure(
          { server: () => [server.process.pid] },
          { url: `${server.url}/api/v1/me`, connections: SATURATION_CONNECTIONS, durationSec },
        );
      await load(fastify, env.warmupSec);
      await load(http, env.warmupSec);
      const runs = await alternate<Measured>({
        id: 'calibration',
        rounds: env.rounds,
        unit: 'req/s',
        labels: ['fastify', 'node:http'],
        ours: () => load(fastify, env.measureSec),
        baseline: () => load(http, env.measureSec),
        settle: env.settle,
        value: (m) => m.okPerSec,
        log: env.log,
      });
      const notes =
        `ours = bare Fastify, baseline = bare node:http, same JSON, ${SATURATION_CONNECTIONS} connections; ` +
        `server CPU per request fastify ${cpuPerRequestText(runs.ours)}, node:http ${cpuPerRequestText(runs.baseline)}; ` +
        `expected near 1 and, above all, steady from run to run and round to round: scattered rounds mean a noisy machine, so trust the other ratios less`;
      return summarize(
        'req_per_s',
        runs.ours.map((r) => r.okPerSec),
        runs.baseline.map((r) => r.okPerSec),
        notes,
      );
    } finally {
      await fastify.process.stop();
      await http.process.stop();
    }
  },
};
