// CONTRACT.md: a machine whose node is older (these ship Node 20) still runs every npm script on Node 24,
// which the project brings as its `node` devDependency (node_modules/.bin first on the scripts' PATH).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('Node 24 comes with the project', () => {
  it.skipIf(!existsSync('/usr/bin/node'))('npm scripts run on Node 24 even when the machine’s own node comes first on PATH', () => {
    // The machine's node and npm first, as a fresh shell has them: npm puts node_modules/.bin before them for scripts.
    const run = spawnSync('npm', ['exec', '--offline', '--', 'node', '-p', 'process.versions.node'], {
      cwd: repoRoot,
      env: { ...process.env, PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(Number(run.stdout.trim().split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('package.json asks for it: the node package in devDependencies, allowed to install, and engines at least 22.17', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      devDependencies: Record<string, string>;
      allowScripts: Record<string, boolean>;
      engines: { node: string };
    };
    expect(pkg.devDependencies.node).toMatch(/^\^24\./);
    expect(pkg.allowScripts.node).toBe(true);
    expect(pkg.engines.node).toBe('>=22.17.0');
  });
});
