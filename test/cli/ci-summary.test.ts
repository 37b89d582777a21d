// .ci/run's last line: the sum CI reads must count a test file that failed to load, which vitest's
// numFailedTests leaves out (the report below has the shape vitest 5 writes for such a run).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'ci-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const report = (name: string, body: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
};
const summary = (...pairs: string[]) =>
  execFileSync(process.execPath, ['.ci/summary.mjs', ...pairs], { encoding: 'utf8' })
    .trim()
    .split('\n');

describe('.ci/summary.mjs', () => {
  it('counts a file that failed to load as a failure, beside the failed tests', () => {
    const file = report('unloaded.json', {
      numFailedTestSuites: 2,
      numPassedTests: 15,
      numFailedTests: 1,
      numPendingTests: 0,
      numTodoTests: 0,
      success: false,
      testResults: [
        { name: '/x/test/a.test.ts', status: 'passed', message: '', assertionResults: [{ status: 'passed' }] },
        { name: '/x/test/broken.test.ts', status: 'failed', message: "Cannot find module './gone.js'", assertionResults: [] },
        {
          name: '/x/test/red.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [
            {
              status: 'failed',
              fullName: 'orders > keeps the order',
              title: 'keeps the order',
              failureMessages: ['AssertionError: expected 4 to be 5\n    at red.test.ts:12:3'],
            },
            { status: 'passed' },
          ],
        },
      ],
    });
    const lines = summary(`npm test=${file}`);
    expect(lines.at(-1)).toBe('15 passed, 2 failed, 0 skipped');
    expect(lines.join('\n')).toContain("broken.test.ts: failed without a failed test (Cannot find module './gone.js')");
    // The failed test by name with its error's first line: CI logs are often read from their tail only.
    expect(lines.find((l) => l.includes('FAILED'))).toMatch(
      /^npm test: FAILED \S*x\/test\/red\.test\.ts > orders > keeps the order: AssertionError: expected 4 to be 5$/,
    );
  });

  it("names the error of a describe block whose beforeAll failed, which vitest's JSON report leaves out", () => {
    // A real vitest run of a fixture file with the suite's reporters: the report and the suite errors beside it.
    const file = join(dir, 'fixture.json');
    const vitest = ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/cli/fixtures/vitest.fixture.config.ts'];
    const run = spawnSync(process.execPath, vitest, { env: { ...process.env, FIXTURE_REPORT: file }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    const lines = summary(`fixture=${file}`);
    expect(lines).toContain(
      'fixture: test/cli/fixtures/describe-hook-fails.fixture.ts: failed without a failed test (a block whose setup fails: Error: the receiver never answered)',
    );
    expect(lines.at(-1)).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('a missing report, or a failed run with no failed file, is still a failure; a green run sums to 0 failed', () => {
    const green = report('green.json', {
      numPassedTests: 3,
      numFailedTests: 0,
      numPendingTests: 1,
      numTodoTests: 1,
      success: true,
      testResults: [],
    });
    const odd = report('odd.json', { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, success: false, testResults: [] });
    expect(summary(`a=${green}`).at(-1)).toBe('3 passed, 0 failed, 2 skipped');
    expect(summary(`a=${green}`, `b=${join(dir, 'missing.json')}`).at(-1)).toBe('3 passed, 1 failed, 2 skipped');
    expect(summary(`a=${odd}`).at(-1)).toBe('3 passed, 1 failed, 0 skipped');
  });
});
