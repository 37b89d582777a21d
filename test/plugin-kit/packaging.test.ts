// The two packages as an integrator gets them: packed (prepack builds them), installed from the tarballs into an
// empty project outside the repository, every entry imported, the conformance command run with no tsx at hand.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRIES = [
  '@store-commerce/sdk',
  '@store-commerce/sdk/browser',
  '@store-commerce/plugin-kit',
  '@store-commerce/plugin-kit/conformance',
];
let dir: string;
let packed: { name: string; filename: string; files: { path: string }[] }[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'store-commerce-packaging-'));
  const { stdout } = await exec('npm', ['pack', '--json', '--workspace', 'sdk', '--workspace', 'plugin-kit', '--pack-destination', dir], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  packed = JSON.parse(stdout.slice(stdout.indexOf('[')));
  const project = join(dir, 'consumer');
  await exec('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packed.map((p) => join(dir, p.filename))], {
    cwd: project,
  });
}, 180_000);
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('the packed packages', () => {
  it('ship built JavaScript, types, README and LICENSE only (no TypeScript sources, no source maps)', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(['@store-commerce/plugin-kit', '@store-commerce/sdk']);
    for (const p of packed) {
      const files = p.files.map((f) => f.path);
      expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
      expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
      expect(files.filter((f) => f.startsWith('src/') || f.endsWith('.map'))).toEqual([]);
    }
    const kit = packed.find((p) => p.name === '@store-commerce/plugin-kit')!;
    expect(kit.files.map((f) => f.path)).toContain('signature-vectors.json');
  });

  it('carry an integrator license, a repository and engines, and are not private; the kit depends on the SDK', () => {
    for (const name of ['sdk', 'plugin-kit']) {
      const pkg = JSON.parse(readFileSync(join(dir, 'consumer/node_modules/@store-commerce', name, 'package.json'), 'utf8'));
      expect(pkg).toMatchObject({ license: 'MIT', repository: { type: 'git' }, engines: { node: expect.any(String) } });
      expect(pkg.private).toBeUndefined();
      if (name === 'plugin-kit') expect(Object.keys(pkg.dependencies)).toEqual(['@store-commerce/sdk']);
    }
  });

  it('every entry imports from the installed tarballs, and the client header names the package version', async () => {
    const script = `const m = await Promise.all(${JSON.stringify(ENTRIES)}.map((e) => import(e)));
      console.log(JSON.stringify({ keys: m.map((x) => Object.keys(x).length), version: m[0].SDK_VERSION }));`;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: join(dir, 'consumer') });
    const out = JSON.parse(stdout);
    expect(out.keys.every((n: number) => n > 0)).toBe(true);
    expect(out.version).toBe(JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8')).version);
  });

  it('npx store-commerce-conformance answers its usage (exit 2) from the installed kit, with no tsx installed', async () => {
    const project = join(dir, 'consumer');
    await expect(exec(process.execPath, ['-e', "import('tsx')"], { cwd: project })).rejects.toBeTruthy();
    const bin = join(project, 'node_modules/.bin/store-commerce-conformance');
    const result = await exec(process.execPath, [bin], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^usage: store-commerce-conformance --push-url URL --secret SECRET/);
  });
});
