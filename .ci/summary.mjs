// Prints the plain summary line of each vitest JSON report named on the command line
// (`label=file` pairs), then their sum as the last line, the one CI reads.
// A test file that failed to load (an import error, a failing beforeAll) has no failed test of its
// own, so vitest's numFailedTests leaves it out: each such file counts as one failure here, and a
// missing or unreadable report counts as one failure too. A describe block's failed hook is not in the
// report at all: test/helpers/suite-errors-reporter.ts writes it beside (`<report>.suite-errors.json`).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const total = { passed: 0, failed: 0, skipped: 0 };
const line = (r) => `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`;

/** The errors of failed describe blocks, by test file, when the reporter wrote them. */
function suiteErrors(file) {
  try {
    return JSON.parse(readFileSync(file.replace(/\.json$/, '') + '.suite-errors.json', 'utf8'));
  } catch {
    return {};
  }
}

/** Why a file failed with no failed test: its own error, else its describe blocks', else how many tests it skipped. */
function why(f, bySuite) {
  if (f.message) return f.message.split('\n')[0];
  const errors = bySuite[f.name] ?? [];
  if (errors.length) return errors.join('; ');
  const skipped = (f.assertionResults ?? []).filter((a) => a.status !== 'passed').length;
  return skipped ? `no message; ${skipped} of its tests did not run` : 'no message';
}

/** The counts of one report; never fewer failures than the run itself saw. */
function summarize(file) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { passed: 0, failed: 1, skipped: 0, notes: [`${file}: no report (the run did not finish)`] };
  }
  const files = report.testResults ?? [];
  const unloaded = files.filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'));
  const bySuite = suiteErrors(file);
  const notes = unloaded.map((f) => `${relative(process.cwd(), f.name)}: failed without a failed test (${why(f, bySuite)})`);
  // Each failed test by name, with the first line of its error: the tail of a CI log is often all one sees.
  for (const f of files) {
    for (const a of f.assertionResults ?? []) {
      if (a.status !== 'failed') continue;
      const first = String(a.failureMessages?.[0] ?? 'no message')
        .split('\n')[0]
        .slice(0, 400);
      notes.push(`FAILED ${relative(process.cwd(), f.name)} > ${a.fullName ?? a.title}: ${first}`);
    }
  }
  let failed = (report.numFailedTests ?? 0) + unloaded.length;
  if (failed === 0 && report.success === false) {
    failed = 1;
    notes.push(`${file}: the run failed outside any test file`);
  }
  return { passed: report.numPassedTests ?? 0, failed, skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0), notes };
}

for (const arg of process.argv.slice(2)) {
  const at = arg.indexOf('=');
  const [label, file] = [arg.slice(0, at), arg.slice(at + 1)];
  const r = summarize(file);
  for (const note of r.notes) console.log(`${label}: ${note}`);
  console.log(`${label}: ${line(r)}`);
  for (const k of Object.keys(total)) total[k] += r[k];
}
console.log(line(total));
