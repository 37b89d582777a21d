import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findTemporalCli, TEMPORAL_CLI_VERSION } from './dev-server.js';

/** How to skip the build, said on the progress line and in every failure. */
export const SKIP_BUILD = 'skip it with TEMPORAL_CLI=<a temporal binary> or TEMPORAL_ADDRESS=<host:port of a running Temporal>';

/** `1m 05s`. */
export const elapsed = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
};

export interface BuildProgress {
  /** A new status line (replaces the previous one on a terminal). */
  line(text: string): void;
  /** How often the line is redrawn, in ms (tests make it short). */
  everyMs?: number;
}

/**
 * Finds the Temporal CLI, or builds it into .tools/bin with `go install`, showing one progress line with
 * the elapsed time instead of Go's hundreds of package names: those go to .tools/temporal-build.log,
 * whose last lines a failure quotes.
 */
export async function ensureTemporalCliWithProgress(repoRoot: string, progress: BuildProgress): Promise<string> {
  const found = findTemporalCli(repoRoot);
  if (found) return found;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0)
    throw new Error(
      `no Temporal CLI found ($TEMPORAL_CLI, PATH, .tools/bin) and Go is not installed to build it: install Go, or put the temporal CLI ${TEMPORAL_CLI_VERSION} on PATH (or in TEMPORAL_CLI), or set TEMPORAL_ADDRESS`,
    );
  const tools = join(repoRoot, '.tools');
  const gobin = join(tools, 'bin');
  mkdirSync(gobin, { recursive: true });
  const logFile = join(tools, 'temporal-build.log');
  const log = openSync(logFile, 'w');
  const started = Date.now();
  const say = () =>
    progress.line(
      `building the Temporal CLI ${TEMPORAL_CLI_VERSION} with ${go.stdout.trim().replace(/^go version /, '')} (first time only, a few minutes): ${elapsed(Date.now() - started)} so far; Go's output in .tools/temporal-build.log; ${SKIP_BUILD}`,
    );
  say();
  const timer = setInterval(say, progress.everyMs ?? 1000);
  try {
    const code = await new Promise<number | null>((done, failed) => {
      const child = spawn('go', ['install', '-v', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
        env: { ...process.env, GOBIN: gobin },
        stdio: ['ignore', log, log],
      });
      child.once('error', failed);
      child.once('exit', done);
    });
    if (code !== 0) {
      const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
      throw new Error(
        `building the Temporal CLI with go install failed (exit ${code}) after ${elapsed(Date.now() - started)}; the last lines of .tools/temporal-build.log:\n${tail}\nFix that and start again, or ${SKIP_BUILD}`,
      );
    }
  } finally {
    clearInterval(timer);
    closeSync(log);
  }
  progress.line(`built the Temporal CLI in ${elapsed(Date.now() - started)}: .tools/bin/temporal`);
  return join(gobin, 'temporal');
}
