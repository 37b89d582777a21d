// MikroORM inlines every parameter into the SQL text; db/postgres-driver.ts replaces its per-character
// string escape with a linear one. These tests hold it to the original, character for character.
import fc from 'fast-check';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openOrm } from '../../db/orm.js';
import { escapeLiteral, PostgresPlatform } from '../../db/postgres-driver.js';

const original = new PostgreSqlPlatform();
/** Strings rich in what escaping is about: quotes, backslashes, E'' look-alikes, NUL-free unicode. */
const sqlText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("'", '\\', 'E', '"', '?', ';', '\n', 'é', '東'),
    fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
  ),
});

describe('string values are escaped exactly as MikroORM escapes them', () => {
  it('gives the same literal for any string', () => {
    fc.assert(
      fc.property(sqlText, (text) => escapeLiteral(text) === original.escape(text)),
      { numRuns: 2000 },
    );
  });

  it('the platform escapes strings with it and leaves every other value to MikroORM', () => {
    const ours = new PostgresPlatform();
    expect(ours.escape("it's a \\ path")).toBe(original.escape("it's a \\ path"));
    for (const value of [null, 12, 1.5, true, 10n, new Date('2026-01-02T03:04:05Z'), ['a', "b'c"], Buffer.from('hi')]) {
      expect(ours.escape(value)).toEqual(original.escape(value));
    }
  });
});

describe('escaped strings reach PostgreSQL unchanged', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 1 });
  });
  afterAll(() => orm.close());

  it('reads back what it wrote, for nasty strings and for a 1 MB one', async () => {
    const nasty = ["'", "''", '\\', "\\'", "'; drop table orders; --", "E'\\x41'", "back\\slash and 'quote'", 'Zoë • 東京', '$1 ? ?? \\?'];
    const big = `${'Crème brûlée \\ "box" \''.repeat(40_000)}`;
    for (const text of [...nasty, big]) {
      const [row] = await orm.em.fork().execute<{ v: string }[]>('select ?::text as v', [text]);
      expect(row!.v === text, `round trip of ${text.slice(0, 40)}`).toBe(true);
    }
  });
});
