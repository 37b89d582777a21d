import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '../../config/free-port.js';
import { attachHeapProbe, type HeapProbe } from '../lib/heap-probe.js';
import { MIX, mixedLoad } from '../lib/mixed-load.js';
import { logDir, peakRssMb, resetPeakRss, rssMb } from '../lib/processes.js';
import type { Scenario } from '../lib/scenario.js';
import { fmt, round, slope } from '../lib/stats.js';

const MB = 1024 * 1024;
/** Seconds between post-GC samples during the load. */
const SAMPLE_SEC = 5;
/**
 * "Flat": the quiet post-GC heap grew by at most 2 MB from start to end, and the slope fitted to the
 * post-GC samples taken under load is at most 2 MB/min. At the few hundred req/s this 2-core machine
 * serves, 2 MB a minute is ~100 bytes a request: a leak of anything request-sized (a body, an entity,
 * a listener with its closure) would be far above it.
 */
const FLAT_GROWTH_MB = 2;
const FLAT_SLOPE_MB_PER_MIN = 2;

interface Sample {
  sec: number;
  heapMb: number;
  externalMb: number;
  rssMb: number;
}

/**
 * Memory of a fresh API process under a mixed load for 60 s (20 s quick): heapUsed after a forced full GC
 * (through the inspector, from outside) every few seconds, and RSS. Growth of what survives a full GC is a
 * leak; RSS alone mixes in the allocator and the GC's own pacing.
 */
export const apiMemoryScenario: Scenario = {
  id: 'api-memory',
  async run(env) {
    const durationSec = env.quick ? 20 : 60;
    const warmupSec = env.quick ? 5 : 15;
    const inspectPort = await freePort();
    const api = await env.startApi('api-memory', [`--inspect=127.0.0.1:${inspectPort}`]);
    const pid = api.process.pid;
    let probe: HeapProbe | undefined;
    try {
      probe = await attachHeapProbe(inspectPort);
      const heap = probe;
      // Warm-up: JIT, connection pools, ORM metadata and prepared shapes fill up before the start figure.
      await mixedLoad(env, api.url, 'warm', warmupSec);
      const quiet = async (label: string) => {
        await env.settle();
        await new Promise((r) => setTimeout(r, 2000));
        const usage = await heap.afterGc();
        if (process.env.BENCH_HEAP_SNAPSHOTS) {
          mkdirSync(resolve(logDir, 'heap'), { recursive: true });
          await heap.snapshot(resolve(logDir, 'heap', `api-memory-${label}.heapsnapshot`));
        }
        return { heapMb: usage.heapUsed / MB, externalMb: usage.external / MB, rssMb: rssMb(pid) };
      };
      const start = await quiet('start');
      resetPeakRss(pid);
      env.log(
        `api-memory: after warm-up heap ${fmt(start.heapMb)} MB (post-GC), RSS ${fmt(start.rssMb)} MB; ${durationSec} s of mixed load`,
      );

      const samples: Sample[] = [];
      let sampledPeak = start.rssMb;
      const t0 = performance.now();
      let running = true;
      const loadDone = mixedLoad(env, api.url, 'run', durationSec).finally(() => (running = false));
      const rssTimer = setInterval(() => (sampledPeak = Math.max(sampledPeak, rssMb(pid))), 500);
      const sampling = (async () => {
        for (let next = SAMPLE_SEC; running; next += SAMPLE_SEC) {
          await new Promise((r) => setTimeout(r, Math.max(0, t0 + next * 1000 - performance.now())));
          if (!running) break;
          const rss = rssMb(pid);
          const usage = await heap.afterGc();
          const sample = { sec: (performance.now() - t0) / 1000, heapMb: usage.heapUsed / MB, externalMb: usage.external / MB, rssMb: rss };
          samples.push(sample);
          env.log(
            `api-memory: ${fmt(sample.sec)} s heap ${fmt(sample.heapMb)} MB (post-GC), external ${fmt(sample.externalMb)} MB, RSS ${fmt(rss)} MB`,
          );
        }
      })();
      const loads = await loadDone;
      await sampling;
      clearInterval(rssTimer);
      const peak = Math.max(sampledPeak, peakRssMb(pid));
      const end = await quiet('end');

      const perMin = slope(samples.map((s) => ({ x: s.sec / 60, y: s.heapMb })));
      const growth = end.heapMb - start.heapMb;
      const requests = Object.values(loads).reduce((n, r) => n + r.ok + r.non2xx, 0);
      const failed = Object.values(loads).reduce((n, r) => n + r.non2xx + r.errors, 0);
      const flat = growth <= FLAT_GROWTH_MB && perMin <= FLAT_SLOPE_MB_PER_MIN;
      const notes =
        `verdict ${flat ? 'FLAT' : 'GROWING'} (rule: quiet post-GC heap growth ≤ ${FLAT_GROWTH_MB} MB and slope of the post-GC samples under load ≤ ${FLAT_SLOPE_MB_PER_MIN} MB/min); ` +
        `a fresh API process (--inspect on loopback) under ${durationSec} s of mixed load after ${warmupSec} s of warm-up: ` +
        `POST /orders ×${MIX.upsert} connections (3 items, 80 % new / 20 % repeated ids), GET /orders?limit=50 ×${MIX.list}, GET /orders/{id} ×${MIX.byId}, GET /me ×${MIX.me}; ` +
        `requests ${Object.entries(loads)
          .map(([k, r]) => `${k} ${r.ok}`)
          .join(', ')} (${fmt(requests / durationSec)} req/s), non-2xx or failed ${failed}; ` +
        `heapUsed after a forced full GC (HeapProfiler.collectGarbage ×2 over the inspector): start ${fmt(start.heapMb)} MB, end ${fmt(end.heapMb)} MB (both quiet), ` +
        `growth ${fmt(growth)} MB = ${fmt((growth * MB) / Math.max(1, requests))} bytes per request, slope under load ${fmt(perMin)} MB/min; ` +
        `samples every ${SAMPLE_SEC} s (s: heap/external/RSS MB) ${samples.map((s) => `${fmt(s.sec)}: ${fmt(s.heapMb)}/${fmt(s.externalMb)}/${fmt(s.rssMb)}`).join(', ')}; ` +
        `external start ${fmt(start.externalMb)} MB, end ${fmt(end.externalMb)} MB; RSS start ${fmt(start.rssMb)} MB, peak ${fmt(peak)} MB, end ${fmt(end.rssMb)} MB; ` +
        `ours = end heap, baseline = start heap (MB, lower is better), rounds = each sample ÷ start`;
      return {
        metric: 'heap_mb',
        ours: round(end.heapMb, 1),
        baseline: round(start.heapMb, 1),
        ratio: round(end.heapMb / start.heapMb, 3),
        rounds: samples.map((s) => round(s.heapMb / start.heapMb, 3)),
        notes,
      };
    } finally {
      probe?.close();
      await api.process.stop();
    }
  },
};
