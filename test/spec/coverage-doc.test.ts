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
        const source = plain(readFileSync(file, 'utf8'));
        const templates = templatePieces(source);
        for (const [, quoted] of m[2]!.matchAll(/"([^"]+)"/g)) {
          for (const fragment of plain(quoted!)
            .split('…')
            .map((f) => f.trim().replace(/^,|,$/g, '').trim())
            .filter((f) => f.length >= 6)) {
            const literal = fragment.split(/%[sj]/).every((piece) => piece.trim().length < 4 || source.includes(piece));
            const templated = templates.some((pieces) => pieces.some((piece) => fragment.includes(piece)));
            if (!literal && !templated) problems.push(`${row.id}: "${fragment}" is not a test of test/${m[1]}.test.ts`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('states counts that are its rows', () => {
    const pending = rows.filter((r) => r.test.trim().startsWith('pending ('));
    const outside = rows.filter((r) => r.id.startsWith('OUT-'));
    const counts = /\*\*Counts\*\*: (\d+) rules .*?; (\d+) with tests; (\d+) pending .*?; (\d+) contract rules checked outside/.exec(doc);
    expect(counts, 'the Counts line').not.toBeNull();
    expect(counts!.slice(1).map(Number)).toEqual([
      rows.length,
      rows.length - pending.length - outside.length,
      pending.length,
      outside.length,
    ]);
  });
});
