// docs/spec-coverage.md stays true: every row names a test that exists, and its counts are its rows.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(`${repoRoot}docs/spec-coverage.md`, 'utf8');
const rows = doc
  .split('\n')
  .filter((line) => /^\| [A-Z]+(-[A-Z]+)?-\d+ \|/.test(line))
  .map((line) => {
    const cells = line.split(' | ');
    return { id: cells[0]!.slice(2), rule: cells[1]!, code: cells[2]!, test: cells.slice(3).join(' | ').replace(/ \|$/, '') };
  });
// Curly and straight apostrophes are the same letter to a reader.
const plain = (text: string) => text.replace(/[‘’]/g, "'");

/** Test names in a file that are built from a template: their literal pieces (`${endpoint} with ${p.name}` → [' with ']). */
function templatePieces(source: string): string[][] {
  return [...source.matchAll(/\b(?:it|describe)(?:\.each\([^)]*\))?\(\s*`([^`]*)`/g)].map((m) =>
    m[1]!
      .split(/\$\{[^}]*\}/)
      .map((piece) => piece.trim())
      .filter((piece) => piece.length >= 2),
  );
}

/**
 * The names of a file's tests and describe blocks: the string literal a call opens with when a function
 * follows it (`it('name', async () =>`, `describe('name', () =>`, `it.each(rows)('name %s', (a) =>`).
 */
function testNames(source: string): string[] {
  const names: string[] = [];
  const call =
    /(?:\bit|\bdescribe|\btest|\))(?:\.(?:skip|only|concurrent|sequential|todo))*\(\s*(?:(['"`])((?:\\.|(?!\1)[^\\\n])*)\1|[A-Za-z_$][\w.$]*)\s*,\s*(?:\{[^{}]*\}\s*,\s*)?(?:async\s*)?(?:\(|function\b|\w+\s*=>)/g;
  // A template's ${…}, and a name held in a variable, stand for anything, like it.each's %s.
  for (const m of source.matchAll(call)) names.push(m[1] ? m[2]!.replace(/\\(.)/g, '$1').replace(/\$\{[^}]*\}/g, '%s') : '%s');
  return names;
}

/**
 * True when a quoted fragment is part of one test's name; or is a whole name built from values
 * (`on %s`, `it.each(rows)('%s', …)`, `it(what, …)`) whose every value is a string literal of the file.
 */
function namesATest(fragment: string, names: string[], templates: string[][], source = ''): boolean {
  const pieces = fragment
    .split(/%[sjdi]/)
    .map((p) => p.trim())
    .filter((p) => p.length >= 4);
  if (names.some((name) => pieces.every((piece) => name.includes(piece)))) return true;
  if (templates.some((t) => t.some((piece) => piece.length >= 4 && fragment.includes(piece)))) return true;
  return names
    .filter((name) => /%[sjdi]/.test(name))
    .some((name) => {
      const pattern = name.split(/%[sjdi]/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      const m = new RegExp(`^${pattern.join('(.+?)')}$`).exec(fragment);
      return !!m && m.slice(1).every((value) => ["'", '"', '`'].some((q) => source.includes(`${q}${value}${q}`)));
    });
}

/** Paths a code cell cites (`api/routes/orders.ts`, `db/migrations`, `package.json`): backticked, with a slash or a file extension. */
function citedPaths(code: string): string[] {
  return [...code.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((p) => /^[.\w-]+(\/[.\w-]+)+\/?$/.test(p) || /^[\w.-]+\.(json|ya?ml|ts|mjs|md)$/.test(p) || p === 'Dockerfile');
}

/**
 * Code names a cell cites right after a file (`services/orders/change.ts` patchOrder, `domain/x.ts` MAX_ITEMS;
 * `TRACKING_*` a prefix) that the file no longer contains: the code moved and the row did not follow.
 */
function missingNames(code: string): string[] {
  const missing: string[] = [];
  for (const m of code.matchAll(/`([^`\s]+\.(?:ts|mjs))`([^`;]*)/g)) {
    const file = `${repoRoot}${m[1]}`;
    if (!existsSync(file)) continue;
    const source = readFileSync(file, 'utf8');
    const names = [...m[2]!.matchAll(/\b([A-Za-z_]\w*\*?)/g)].map((n) => n[1]!).filter((n) => /[A-Z_]/.test(n.replace(/^[A-Z]/, '')));
    for (const name of names) {
      const found = name.endsWith('*') ? source.includes(name.slice(0, -1)) : new RegExp(`\\b${name}\\b`).test(source);
      if (!found) missing.push(`${m[1]} has no ${name}`);
    }
  }
  return missing;
}

describe('docs/spec-coverage.md', () => {
  it('gives every row an id of its own and a test (or a pending or outside mark)', () => {
    expect(rows.length).toBeGreaterThan(150);
    const ids = rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of rows) {
      expect(row.test.trim(), row.id).not.toBe('');
      expect(/›|pending \(issue \d+|outside vitest|^see [A-Z]/.test(row.test), `${row.id}: ${row.test}`).toBe(true);
    }
  });

  it('names test files that exist and test names that are in them', () => {
    const problems: string[] = [];
    for (const row of rows) {
      for (const part of row.test.split(';')) {
        const m = /^\s*([a-z-]+\/[a-z0-9-]+) ›(.*)$/.exec(part);
        if (!m) continue;
        const file = `${repoRoot}test/${m[1]}.test.ts`;
        if (!existsSync(file)) {
          problems.push(`${row.id}: no file test/${m[1]}.test.ts`);
          continue;
        }
        const raw = readFileSync(file, 'utf8');
        const names = testNames(raw).map(plain);
        const templates = templatePieces(plain(raw));
        for (const [, quoted] of m[2]!.matchAll(/"([^"]+)"/g)) {
          for (const fragment of plain(quoted!)
            .split('…')
            .map((f) => f.trim().replace(/^,|,$/g, '').trim())
            .filter((f) => f.length >= 6)) {
            if (!namesATest(fragment, names, templates, plain(raw)))
              problems.push(`${row.id}: "${fragment}" is not a test of test/${m[1]}.test.ts`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('cites code paths that exist, and the names it cites after a file are in that file', () => {
    const problems = rows.flatMap((row) => [
      ...citedPaths(row.code)
        .filter((p) => !existsSync(`${repoRoot}${p}`))
        .map((p) => `${row.id}: ${p}`),
      ...missingNames(row.code).map((m) => `${row.id}: ${m}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('states counts that are its rows', () => {
    const pending = rows.filter((r) => r.test.trim().startsWith('pending ('));
    const outside = rows.filter((r) => r.id.startsWith('OUT-'));
    const counts = /\*\*Counts\*\*: (\d+) rules .*?; (\d+) with tests; (\d+) pending .*?; (\d+) contract rules? checked outside/.exec(doc);
    expect(counts, 'the Counts line').not.toBeNull();
    expect(counts!.slice(1).map(Number)).toEqual([
      rows.length,
      rows.length - pending.length - outside.length,
      pending.length,
      outside.length,
    ]);
  });
});

describe('the checker of docs/spec-coverage.md can fail', () => {
  const source = `
describe('order events', () => {
  it('a new order gives order.created', async () => {
    expect(await types()).toEqual(['order.updated, order.paid']);
  });
  it.each([['a', 1]])('input %s is stored as %s', async (a, b) => {});
});`;
  const names = testNames(source);

  it('reads test and describe names, and nothing else of the file', () => {
    expect(names).toEqual(['order events', 'a new order gives order.created', 'input %s is stored as %s']);
    expect(testNames('it(`${route} with ${key.name}: 403`, { timeout: 5 }, async () => {});')).toEqual(['%s with %s: 403']);
  });

  it('refuses a quoted name that is only text inside a test, or no text at all', () => {
    expect(namesATest('a new order gives order.created', names, [])).toBe(true);
    expect(namesATest('input %s is stored as %s', names, [])).toBe(true);
    expect(namesATest('order.updated, order.paid', names, [])).toBe(false);
    expect(namesATest('a deleted order gives nothing', names, [])).toBe(false);
    // A name built from values: each value must be a string literal of the file, not any text.
    const built = "const cases = [['401 without a key', 401]];\nfor (const [name] of cases) it(`on ${name}`, async () => {});";
    expect(namesATest('on 401 without a key', testNames(built), [], built)).toBe(true);
    expect(namesATest('on 402 with a coin', testNames(built), [], built)).toBe(false);
  });

  it('finds a cited name its file no longer has', () => {
    expect(missingNames('`services/orders/change.ts` patchOrder, archiveOrder')).toEqual([]);
    expect(missingNames('`services/orders/change.ts` patchOrder, mayChange (removed)')).toEqual([
      'services/orders/change.ts has no mayChange',
    ]);
    expect(missingNames('`config/env.ts` TRACKING_*; `examples/plugin/plugin.ts` PULL_INTERVAL_MS')).toEqual([
      'examples/plugin/plugin.ts has no PULL_INTERVAL_MS',
    ]);
  });

  it('finds cited paths, and a moved one is missing', () => {
    const code = '`services/orders/change.ts` patchOrder; `db/migrations` table; `package.json` (`node` devDependency)';
    expect(citedPaths(code)).toEqual(['services/orders/change.ts', 'db/migrations', 'package.json']);
    expect(existsSync(`${repoRoot}services/orders/moved-away.ts`)).toBe(false);
    expect(citedPaths('`services/orders/moved-away.ts` patchOrder').filter((p) => !existsSync(`${repoRoot}${p}`))).toEqual([
      'services/orders/moved-away.ts',
    ]);
  });
});
