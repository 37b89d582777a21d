import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What was built: the package's version and the source commit (`unknown` when neither git nor the build recorded it). */
export interface BuildInfo {
  version: string;
  commit: string;
}

/** The file `npm run build` writes the commit to (dist/ has no .git beside it in an image). */
export const COMMIT_FILE = 'dist/COMMIT';

/** The repository root: the folder of the service's package.json, from here or from dist/config. */
export function serviceRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'store-commerce') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('the service package.json was not found above config/');
    dir = up;
  }
}

/** The commit of a git checkout, or null outside one (an image) or without git. */
export function gitCommit(root: string): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

let known: BuildInfo | undefined;

/**
 * This process's build: read once, then kept. Compiled code reads the commit its build recorded
 * (dist/COMMIT, the commit it was compiled from) and asks git only without it; the sources ask git.
 * Asking git costs a child process, 30–50 ms of every start of the API and the worker.
 */
export function buildInfo(): BuildInfo {
  if (known) return known;
  const root = serviceRoot();
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const recorded = () => (existsSync(join(root, COMMIT_FILE)) ? readFileSync(join(root, COMMIT_FILE), 'utf8').trim() : '');
  // This module runs from `npm run build`'s output (dist/config), or from the sources (config/).
  const compiled = dirname(fileURLToPath(import.meta.url)) === join(root, 'dist', 'config');
  const commit = compiled ? recorded() || gitCommit(root) : gitCommit(root) || recorded();
  known = { version, commit: commit || 'unknown' };
  return known;
}
