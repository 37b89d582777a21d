import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Real workflows on a shared 2-core machine: generous, since a slow run is not a failed one.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest/results.json' },
  },
});
