import { defineConfig } from 'vitest/config';
import { PACKAGE_SOURCES } from './test/helpers/package-sources.js';

// The production topology (`npm run test:topology`, after `npm run build`): two `start:api` and two
// `start:worker` processes from dist/ on one PostgreSQL and one Temporal, behind a loopback proxy.
export default defineConfig({
  resolve: { alias: PACKAGE_SOURCES },
  test: {
    include: ['test/topology/**/*.test.ts'],
    globalSetup: ['test/topology/setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
    // The third writes the errors of failed describe blocks beside the JSON report (.ci/summary.mjs prints them).
    reporters: ['default', 'json', ['./test/helpers/suite-errors-reporter.ts', { jsonReport: '.vitest/topology-results.json' }]],
    outputFile: { json: '.vitest/topology-results.json' },
  },
});
