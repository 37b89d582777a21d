// The declarations of db/tables/ against the migrated database: a migration that changes a declared table
// without its declaration (or a declaration that drifts from the migrations) fails here.
// Every table the migrations make is declared exactly once (db/tables/, or a MikroORM entity in db/entities/).
import type { EntityMetadata, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { ApiKeyRow } from '../../db/entities/api-key.js';
import type { StoreRow } from '../../db/entities/store.js';
import { openOrm } from '../../db/orm.js';
import { Column, boolean, integer, oneOf, table, text, type Columns, type SqlType, type Table } from '../../db/tables/columns.js';
import { TABLES } from '../../db/tables/index.js';
import { ORDERS } from '../../db/tables/orders.js';
import { ORDER_STATUSES } from '../../domain/order-status.js';

let client: pg.Client;
let orm: MikroORM;
/** The tables the MikroORM entities map, as declarations (read from the ORM's own metadata). */
let entityTables: Table[];
beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 1 });
  entityTables = [...orm.getMetadata().getAll().values()].filter((meta) => !meta.embeddable && !meta.virtual).map(entityTable);
});
afterAll(async () => {
  await client.end();
  await orm?.close();
});

/** The migrator's own bookkeeping: MikroORM's, not ours. */
const NOT_OURS = ['mikro_orm_migrations'];

/** An entity's table in the declarations' words: each persisted property's columns, types, nullability, default, allowed values. */
function entityTable(meta: EntityMetadata): Table {
  const columns: Columns = {};
  for (const prop of meta.props) {
    if (prop.persist === false || prop.kind === '1:m' || prop.kind === 'm:n') continue;
    for (const [i, name] of prop.fieldNames.entries()) {
      const type = prop.columnTypes[i]!;
      const numeric = /^numeric\((\d+),(\d+)\)$/.exec(type);
      columns[name] = new Column(
        (numeric ? 'numeric' : type) as SqlType,
        prop.nullable === true,
        prop.default !== undefined || prop.defaultRaw !== undefined || (prop.primary === true && prop.autoincrement === true),
        prop.enum ? (prop.items as string[]) : undefined,
        numeric ? [Number(numeric[1]), Number(numeric[2])] : undefined,
      );
    }
  }
  return table(meta.tableName, columns);
}

/** The migrated tables no declaration covers, and the declared names no migrated table has. */
async function uncovered(declared: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
  );
  const migrated = rows.map((r) => r.table_name).filter((name) => !NOT_OURS.includes(name));
  const twice = declared.filter((name, i) => declared.indexOf(name) !== i);
  return [
    ...migrated.filter((name) => !declared.includes(name)).map((name) => `${name}: migrated, not declared`),
    ...declared.filter((name) => !migrated.includes(name)).map((name) => `${name}: declared, not migrated`),
    ...[...new Set(twice)].map((name) => `${name}: declared more than once`),
  ];
}

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

  it('each MikroORM entity (stores, api_keys) agrees with its table in the same words', async () => {
    expect(entityTables.map((t) => t.name).sort()).toEqual(['api_keys', 'stores']);
    for (const t of entityTables) expect(await differences(t)).toEqual([]);
  });

  it('every migrated table is declared exactly once, in db/tables/ or as an entity', async () => {
    expect(await uncovered([...TABLES, ...entityTables].map((t) => t.name))).toEqual([]);
  });
});

describe('the row types of the entity tables name the columns the migrations made', () => {
  // `satisfies Record<keyof Row, true>` fails to compile on a key the row type lacks or has beyond these;
  // the test then holds these keys to the database, so the derived type and the table cannot drift apart.
  const storeKeys = {
    id: true,
    name: true,
    slug: true,
    currency: true,
    mode: true,
    plan: true,
    paid_until: true,
    published: true,
    standard_delivery_fee: true,
    time_zone: true,
    next_order_number: true,
    created_at: true,
    updated_at: true,
  } satisfies Record<keyof StoreRow, true>;
  const apiKeyKeys = {
    id: true,
    store_id: true,
    kind: true,
    key_hash: true,
    prefix: true,
    scopes: true,
    origins: true,
    connection_id: true,
    label: true,
    created_at: true,
    revoked_at: true,
    last_used_at: true,
  } satisfies Record<keyof ApiKeyRow, true>;

  it.each([
    ['stores', storeKeys],
    ['api_keys', apiKeyKeys],
  ] as const)('%s', async (name, keys) => {
    const { rows } = await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1`,
      [name],
    );
    expect(Object.keys(keys).sort()).toEqual(rows.map((r) => r.column_name).sort());
  });
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

  it('a migrated table without a declaration, a declaration without a table, a table declared twice', async () => {
    const declared = [...TABLES, ...entityTables].map((t) => t.name).filter((name) => name !== 'lanes');
    expect(await uncovered(declared)).toEqual(['lanes: migrated, not declared']);
    expect(await uncovered([...declared, 'lanes', 'gift_cards'])).toEqual(['gift_cards: declared, not migrated']);
    expect(await uncovered([...declared, 'lanes', 'stores'])).toEqual(['stores: declared more than once']);
  });

  it('an entity that lacks a migrated column, or gets its precision wrong', async () => {
    const stores = entityTables.find((t) => t.name === 'stores')!;
    const { next_order_number: _n, ...withoutNumber } = stores.columns;
    expect(await differences(table('stores', withoutNumber))).toEqual(['stores.next_order_number: in the database, not declared']);
    const fee = stores.columns.standard_delivery_fee!;
    const imprecise = {
      ...stores.columns,
      standard_delivery_fee: new Column('numeric', fee.isNullable, fee.hasDefault, undefined, [10, 0]),
    };
    expect(await differences(table('stores', imprecise))).toEqual([
      'stores.standard_delivery_fee: numeric(14,4) in the database, declared numeric(10,0)',
    ]);
  });

  it('an unknown table', async () => {
    expect(await differences(table('no_such_table', { id: text() }))).toEqual(['no_such_table: no such table in the database']);
  });
});
