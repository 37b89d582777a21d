// Where a process learns its commit (config/build-info.ts): compiled code (dist/config) reads the commit its
// build recorded in dist/COMMIT and spawns git only without it (git cost every start of the API and the
// worker 30–50 ms); the sources ask git first. Each case copies the module into a folder of its own, a git
// checkout whose commit differs from what dist/COMMIT says, and runs it there with Node.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const RECORDED = 'feedfacecafe';
let root: string;
let gitHead: string;

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** The commit the module at `folder` (relative to the checkout) reports, run by Node from the checkout. */
function commitFrom(folder: string, env: NodeJS.ProcessEnv = process.env): string {
  const url = new URL(`file://${join(root, folder, 'build-info.ts')}`).href;
  return execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `console.log((await import(${JSON.stringify(url)})).buildInfo().commit)`],
    {
      cwd: root,
      encoding: 'utf8',
      env,
    },
  ).trim();
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'build-info-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'store-commerce', version: '9.9.9', type: 'module' }));
  for (const folder of ['config', 'dist/config']) {
    mkdirSync(join(root, folder), { recursive: true });
    cpSync(new URL('../../config/build-info.ts', import.meta.url), join(root, folder, 'build-info.ts'));
  }
  writeFileSync(join(root, 'dist', 'COMMIT'), `${RECORDED}\n`);
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'x');
  gitHead = git('rev-parse', '--short=12', 'HEAD');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('build info', () => {
  it('compiled code takes the commit its build recorded, even inside a git checkout', () => {
    expect(gitHead).not.toBe(RECORDED);
    expect(commitFrom('dist/config')).toBe(RECORDED);
  });

  it('compiled code needs no git at all when the build recorded the commit', () => {
    expect(commitFrom('dist/config', { ...process.env, PATH: '/nonexistent' })).toBe(RECORDED);
  });

  it('the sources ask git first, and fall back to the recorded commit without it', () => {
    expect(commitFrom('config')).toBe(gitHead);
    expect(commitFrom('config', { ...process.env, PATH: '/nonexistent' })).toBe(RECORDED);
  });
});
