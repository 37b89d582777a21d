import { defineConfig } from 'vitest/config';
import { PACKAGE_SOURCES } from './test/helpers/package-sources.js';

/** Pure rules and the plugin kit (loopback only): no database, no Temporal, no setup; they run in milliseconds. */
const UNIT = ['test/domain/**/*.test.ts', 'test/plugin-kit/**/*.test.ts'];
/** Headless Chromium against the real service. */
const BROWSER = ['test/**/browser*.test.ts'];

// `npm test` runs all three projects; `npx vitest run --project unit` runs the pure rules alone.
// The integration and browser projects share one PostgreSQL database, Temporal dev server and worker
// (test/global-setup.ts starts them once per run, whichever project asks first).
export default defineConfig({
  resolve: { alias: PACKAGE_SOURCES },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    // Real workflows on a shared 2-core machine: generous, since a slow run is not a failed one.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // The third writes the errors of failed describe blocks beside the JSON report (.ci/summary.mjs prints them).
    reporters: ['default', 'json', ['./test/helpers/suite-errors-reporter.ts', { jsonReport: '.vitest/results.json' }]],
    outputFile: { json: '.vitest/results.json' },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...BROWSER, 'test/chaos/**', 'test/topology/**'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'browser', include: BROWSER, globalSetup: ['test/global-setup.ts'] } },
    ],
  },
});
