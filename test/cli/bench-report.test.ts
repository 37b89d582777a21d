// bench/results/latest.json keeps CONTRACT.md's shape ("Benchmark output"), and a scenario that could
// not run is written with "error" instead of figures, never left out.
import { describe, expect, it } from 'vitest';
import { buildReport, formatTable } from '../../bench/lib/report.js';
import { summarize } from '../../bench/lib/stats.js';

describe('the bench report', () => {
  const me = summarize('req_per_s', [1000, 1100, 900], [2000, 2000, 2000], 'GET /api/v1/me');
  const report = buildReport(false, {
    me,
    'webhook-e2e-p99': { error: 'the receiver never answered' },
    'rss-1mb-bodies': { error: 'set-up failed: port taken' },
    'api-memory': summarize('rss_mb', [160], [60], 'idle'),
  });

  it('has the contract’s top-level fields and each measured scenario’s figures', () => {
    expect(Object.keys(report).sort()).toEqual([
      'cpus',
      'generated_at',
      'host',
      'memory',
      'node',
      'postgres',
      'quick',
      'scenarios',
      'temporal',
      'verdict',
    ]);
    expect(report.generated_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(report.node).toMatch(/^v\d+\./);
    expect(report.quick).toBe(false);
    expect(report.scenarios.me).toEqual({
      metric: 'req_per_s',
      ours: 1000,
      baseline: 2000,
      ratio: 0.5,
      rounds: [0.5, 0.55, 0.45],
      notes: 'GET /api/v1/me',
    });
  });

  it('writes a scenario that could not run with its error instead of figures, in its own section (memory ones under memory)', () => {
    expect(report.scenarios['webhook-e2e-p99']).toEqual({ error: 'the receiver never answered' });
    expect(report.memory['rss-1mb-bodies']).toEqual({ error: 'set-up failed: port taken' });
    expect(report.memory['api-memory']).toMatchObject({ metric: 'rss_mb' });
    const table = formatTable(report);
    expect(table).toContain('webhook-e2e-p99: could not run: the receiver never answered');
    expect(table).toMatch(/rss-1mb-bodies\s+error/);
  });

  it('refuses a verdict unless calibration is within 0.9–1.1, and files the day’s own units under scenarios', () => {
    expect(report.verdict).toMatch(/^no verdict: calibration did not run/);
    const within = buildReport(true, { calibration: summarize('req_per_s', [950], [1000], 'bare') });
    expect(within.verdict).toMatch(/within 0\.9–1\.1/);
    const skewed = buildReport(true, {
      calibration: summarize('req_per_s', [800], [1000], 'bare'),
      'webhook-tail-events': summarize('events_per_order', [12], [2], 'events'),
      'webhook-tail-p999': summarize('p999_ms', [900], [3], 'tail'),
    });
    expect(skewed.verdict).toMatch(/^NO VERDICT: calibration 0\.8 is outside 0\.9–1\.1/);
    expect(Object.keys(skewed.scenarios)).toEqual(['calibration', 'webhook-tail-events', 'webhook-tail-p999']);
    expect(formatTable(skewed)).toContain('NO VERDICT');
  });
});
