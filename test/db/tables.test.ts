// The declarations of db/tables/ against the migrated database: a migration that changes a declared table
// without its declaration (or a declaration that drifts from the migrations) fails here.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { boolean, integer, oneOf, table, text, type Column, type Table } from '../../db/tables/columns.js';
import { TABLES } from '../../db/tables/index.js';
import { ORDERS } from '../../db/tables/orders.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
});
afterAll(() => client.end());

interface DbColumn {
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
}

/** information_schema's data_type in the declarations' words. */
function sqlType(c: DbColumn): string {
  if (c.data_type === 'timestamp with time zone') return 'timestamptz';
  if (c.data_type === 'ARRAY') return `${c.udt_name.replace(/^_/, '')}[]`;
  return c.data_type;
}

/** The values each `col = any (array[…])` (or `col = '…'`) check constraint of the table allows, by column. */
async function enumChecks(name: string): Promise<Map<string, string[]>> {
  const { rows } = await client.query<{ def: string }>(
    `select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = $1::regclass and contype = 'c'`,
    [name],
  );
  const checks = new Map<string, string[]>();
  for (const { def } of rows) {
    const m = /^CHECK \(\((\w+) = (?:ANY \(ARRAY\[(.*)\]\)|('.*'::text))\)\)$/.exec(def);
    if (m) checks.set(m[1]!, [...(m[2] ?? m[3]!).matchAll(/'([^']*)'::text/g)].map((v) => v[1]!).sort());
  }
  return checks;
}

/** Every way the declaration and the live table disagree, in words; [] when they agree. */
async function differences(t: Table): Promise<string[]> {
  const { rows } = await client.query<DbColumn>(
    `select column_name, data_type, udt_name, is_nullable, column_default, numeric_precision, numeric_scale
     from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
    [t.name],
  );
  if (rows.length === 0) return [`${t.name}: no such table in the database`];
  const found: string[] = [];
  const declared = t.columns as Record<string, Column>;
  const checks = await enumChecks(t.name);
  for (const db of rows) {
    const at = `${t.name}.${db.column_name}`;
    const c = declared[db.column_name];
    if (!c) {
      found.push(`${at}: in the database, not declared`);
      continue;
    }
    if (sqlType(db) !== c.type) found.push(`${at}: ${sqlType(db)} in the database, declared ${c.type}`);
    if ((db.is_nullable === 'YES') !== c.isNullable)
      found.push(`${at}: ${db.is_nullable === 'YES' ? 'nullable' : 'not null'} in the database, declared otherwise`);
    if ((db.column_default !== null) !== c.hasDefault)
      found.push(
        `${at}: ${db.column_default === null ? 'no default' : `default ${db.column_default}`} in the database, declared otherwise`,
      );
    if (c.type === 'numeric' && `${db.numeric_precision},${db.numeric_scale}` !== c.precision?.join(',')) {
      found.push(
        `${at}: numeric(${db.numeric_precision},${db.numeric_scale}) in the database, declared numeric(${c.precision?.join(',')})`,
      );
    }
    const allowed = checks.get(db.column_name)?.join(', ');
    const values = c.values ? [...c.values].sort().join(', ') : undefined;
    if (allowed !== values)
      found.push(
        `${at}: ${allowed ? `one of ${allowed}` : 'any text'} in the database, declared ${values ? `one of ${values}` : 'any text'}`,
      );
  }
  for (const name of Object.keys(declared)) {
    if (!rows.some((db) => db.column_name === name)) found.push(`${t.name}.${name}: declared, not in the database`);
  }
  return found;
}

describe('each declared table is the table the migrations made', () => {
  it.each(TABLES.map((t) => [t.name, t] as const))(
    '%s: names, types, nullability, defaults, numeric precision and allowed values agree',
    async (_name, t) => {
      expect(await differences(t)).toEqual([]);
    },
  );
});

describe('the comparison catches each kind of drift', () => {
  const { note: _note, ...withoutNote } = ORDERS.columns;
  const drifted: [string, Record<string, Column<unknown, boolean>>, string][] = [
    ['a column the migrations added and the declaration lacks', withoutNote, 'orders.note: in the database, not declared'],
    ['a declared column no migration made', { ...ORDERS.columns, gift_wrap: text() }, 'orders.gift_wrap: declared, not in the database'],
    ['another type', { ...ORDERS.columns, version: boolean().defaulted() }, 'orders.version: integer in the database, declared boolean'],
    ['another nullability', { ...ORDERS.columns, note: text() }, 'orders.note: nullable in the database, declared otherwise'],
    [
      'a default the declaration lacks',
      { ...ORDERS.columns, version: integer() },
      'orders.version: default 1 in the database, declared otherwise',
    ],
    [
      'an enumeration value no check constraint allows',
      { ...ORDERS.columns, status: oneOf([...ORDER_STATUSES, 'returned']) },
      'orders.status: one of',
    ],
    [
      'a check constraint the declaration lacks',
      { ...ORDERS.columns, source: text() },
      'orders.source: one of api, native, platform_a, platform_b in the database, declared any text',
    ],
  ];
  it.each(drifted)('%s', async (_what, columns, expected) => {
    const found = await differences(table('orders', columns));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(expected);
  });

  it('an unknown table', async () => {
    expect(await differences(table('no_such_table', { id: text() }))).toEqual(['no_such_table: no such table in the database']);
  });
});
