// The first start's Temporal CLI build: one progress line with the elapsed time and how to skip the build,
// Go's output in .tools/temporal-build.log, its last lines in the failure. A stand-in `go` on PATH plays
// the toolchain (the real build takes minutes).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { elapsed, ensureTemporalCliWithProgress } from '../../dev/temporal/cli-build.js';

let dir: string;
let saved: { PATH?: string; TEMPORAL_CLI?: string };

/** A `go` that answers `go version`, prints package names for `go install`, then succeeds or fails. */
function fakeGo(succeed: boolean) {
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'go'),
    `#!/bin/sh
if [ "$1" = version ]; then echo "go version go1.24.4 linux/amd64"; exit 0; fi
for p in a b c; do echo "github.com/example/package-$p"; done
sleep 1.5
${succeed ? 'printf "#!/bin/sh\\n" > "$GOBIN/temporal"; chmod +x "$GOBIN/temporal"; exit 0' : 'echo "compile: out of memory" >&2; exit 2'}
`,
  );
  chmodSync(join(bin, 'go'), 0o755);
  // No temporal anywhere on PATH: only the stand-in go and the shell's own tools.
  process.env.PATH = [bin, '/usr/bin', '/bin'].join(delimiter);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'temporal-build-'));
  saved = { PATH: process.env.PATH, TEMPORAL_CLI: process.env.TEMPORAL_CLI };
  delete process.env.TEMPORAL_CLI;
});
afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.TEMPORAL_CLI !== undefined) process.env.TEMPORAL_CLI = saved.TEMPORAL_CLI;
  rmSync(dir, { recursive: true, force: true });
});

describe('building the Temporal CLI on the first start', () => {
  it('shows one progress line with the elapsed time and how to skip the build; Go’s output goes to a log file', async () => {
    fakeGo(true);
    const lines: string[] = [];
    const cli = await ensureTemporalCliWithProgress(dir, { line: (l) => lines.push(l), everyMs: 200 });
    expect(cli).toBe(join(dir, '.tools', 'bin', 'temporal'));
    expect(existsSync(cli)).toBe(true);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^building the Temporal CLI v1\.5\.1 with go1\.24\.4 .*: 0s so far;/);
    expect(lines.every((l, i) => i === lines.length - 1 || (l.includes('TEMPORAL_CLI=') && l.includes('TEMPORAL_ADDRESS=')))).toBe(true);
    expect(lines.at(-2)).toMatch(/: 1s so far;/);
    expect(lines.at(-1)).toMatch(/^built the Temporal CLI in 1s/);
    expect(lines.join('\n')).not.toContain('github.com/example');
    expect(readFileSync(join(dir, '.tools', 'temporal-build.log'), 'utf8')).toContain('github.com/example/package-c');
  });

  it('a failed build quotes the end of Go’s output and says how to skip the build', async () => {
    fakeGo(false);
    const failure = ensureTemporalCliWithProgress(dir, { line: () => undefined, everyMs: 200 });
    await expect(failure).rejects.toThrow(
      /go install failed \(exit 2\)[\s\S]*compile: out of memory[\s\S]*TEMPORAL_CLI=.*TEMPORAL_ADDRESS=/,
    );
  });

  it('elapsed time reads as minutes and seconds', () => {
    expect([elapsed(999), elapsed(59_000), elapsed(65_000), elapsed(600_000)]).toEqual(['0s', '59s', '1m 05s', '10m 00s']);
  });
});
