// Vitest's JSON report keeps a test file's own errors, not those of its describe blocks: when a describe's
// beforeAll fails, its tests are skipped and the file fails with no message at all (CI once printed only
// "metrics.test.ts: failed without a failed test (no message)"). This reporter writes the first error of
// every failed suite, by file, beside the JSON report, where .ci/summary.mjs finds it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SuiteErrorsReporter implements Reporter {
  constructor(private readonly options: { jsonReport: string }) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byFile: Record<string, string[]> = {};
    for (const module of modules) {
      for (const suite of [module, ...module.children.allSuites()]) {
        const [error] = suite.errors();
        if (!error) continue;
        const where = suite.type === 'suite' ? `${suite.fullName}: ` : '';
        (byFile[module.moduleId] ??= []).push(`${where}${error.name ?? 'Error'}: ${(error.message || '(no message)').split('\n')[0]}`);
      }
    }
    // `<report>.json` → `<report>.suite-errors.json`, the name .ci/summary.mjs looks for.
    const file = resolve(this.options.jsonReport).replace(/\.json$/, '') + '.suite-errors.json';
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(byFile, null, 2));
  }
}
