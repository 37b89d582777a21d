import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Pure rules and the plugin kit (loopback only): no database, no Temporal, no setup; they run in milliseconds. */
const UNIT = ['test/domain/**/*.test.ts', 'test/plugin-kit/**/*.test.ts'];
/** Headless Chromium against the real service. */
const BROWSER = ['test/**/browser*.test.ts'];

// `npm test` runs all three projects; `npx vitest run --project unit` runs the pure rules alone.
// The integration and browser projects share one PostgreSQL database, Temporal dev server and worker
// (test/global-setup.ts starts them once per run, whichever project asks first).
/** The packages from their sources (their exports point at the built dist/, which tests do not need). */
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));
export const PACKAGE_SOURCES = [
  { find: /^@store-commerce\/sdk$/, replacement: src('./sdk/src/index.ts') },
  { find: /^@store-commerce\/sdk\/browser$/, replacement: src('./sdk/src/browser.ts') },
  { find: /^@store-commerce\/plugin-kit$/, replacement: src('./plugin-kit/src/index.ts') },
  { find: /^@store-commerce\/plugin-kit\/conformance$/, replacement: src('./plugin-kit/src/conformance/index.ts') },
];

export default defineConfig({
  resolve: { alias: PACKAGE_SOURCES },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    // Real workflows on a shared 2-core machine: generous, since a slow run is not a failed one.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ['default', 'json'],
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
