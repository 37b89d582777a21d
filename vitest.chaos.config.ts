import { defineConfig } from 'vitest/config';
import { PACKAGE_SOURCES } from './test/helpers/package-sources.js';

// The slow part of the reliability battery (`npm run test:chaos`): each file stops and restarts a
// backing service of its own, so files run one at a time.
export default defineConfig({
  resolve: { alias: PACKAGE_SOURCES },
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    // The third writes the errors of failed describe blocks beside the JSON report (.ci/summary.mjs prints them).
    reporters: ['default', 'json', ['./test/helpers/suite-errors-reporter.ts', { jsonReport: '.vitest/chaos-results.json' }]],
    outputFile: { json: '.vitest/chaos-results.json' },
  },
});
