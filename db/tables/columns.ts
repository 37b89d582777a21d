// A table that hand-written SQL reads and writes, declared once: its row type, the column lists of its
// statements and a test against information_schema (test/db/tables.test.ts) all come from the declaration.

/** A column's PostgreSQL type, as a `jsonb_to_recordset(…) as x(name type, …)` list spells it. */
export type SqlType = 'uuid' | 'text' | 'text[]' | 'boolean' | 'smallint' | 'integer' | 'bigint' | 'numeric' | 'jsonb' | 'timestamptz';

/** One column: its type, whether it may be null, whether the database fills it when an insert leaves it out. */
export class Column<T = unknown, Nullable extends boolean = boolean> {
  /** Only the type system reads it: the value's TypeScript type as a row hands it back. */
  declare readonly value: T;

  constructor(
    readonly type: SqlType,
    readonly isNullable: Nullable,
    readonly hasDefault: boolean,
    /** The only values a check constraint allows (an enumeration kept in a text column). */
    readonly values?: readonly string[],
    /** numeric(precision, scale). */
    readonly precision?: readonly [number, number],
  ) {}

  /** May be null (and is null when an insert leaves it out, unless it also has a default). */
  nullable(): Column<T, true> {
    return new Column<T, true>(this.type, true, this.hasDefault, this.values, this.precision);
  }

  /** Has a default: an insert may leave it out. */
  defaulted(): Column<T, Nullable> {
    return new Column<T, Nullable>(this.type, this.isNullable, true, this.values, this.precision);
  }
}

export const uuid = () => new Column<string, false>('uuid', false, false);
export const text = () => new Column<string, false>('text', false, false);
export const textArray = () => new Column<string[], false>('text[]', false, false);
/** A text column whose check constraint allows only these values. */
export const oneOf = <const V extends readonly string[]>(values: V) => new Column<V[number], false>('text', false, false, values);
export const boolean = () => new Column<boolean, false>('boolean', false, false);
export const smallint = () => new Column<number, false>('smallint', false, false);
export const integer = () => new Column<number, false>('integer', false, false);
/** pg hands int8 back as text: it may not fit a double. */
export const bigint = () => new Column<string, false>('bigint', false, false);
/** pg hands numeric back as text, exact. */
export const numeric = (precision: number, scale: number) =>
  new Column<string, false>('numeric', false, false, undefined, [precision, scale]);
export const jsonb = <T>() => new Column<T, false>('jsonb', false, false);
/** A Date from pg's own parser, or the text PostgreSQL printed (executeBound hands timestamps back as text): new Date(value) reads both. */
export const timestamptz = () => new Column<Date | string, false>('timestamptz', false, false);

export type Columns = Record<string, Column<unknown, boolean>>;

/** A table's name and its columns, in the order the migrations created them. */
export interface Table<C extends Columns = Columns> {
  name: string;
  columns: C;
}

/** Declares a table (see test/db/tables.test.ts, which holds every declaration to the migrated database). */
export const table = <C extends Columns>(name: string, columns: C): Table<C> => ({ name, columns });

/** A row of the table as PostgreSQL hands it back. */
export type RowOf<T extends Table> = {
  [K in keyof T['columns']]: T['columns'][K] extends Column<infer V, infer N> ? (N extends true ? V | null : V) : never;
};

export type ColumnName<T extends Table> = keyof T['columns'] & string;

/** Every column of the table but these, in declaration order. */
export function columnsExcept<T extends Table, const X extends readonly ColumnName<T>[]>(
  t: T,
  except: X,
): Exclude<ColumnName<T>, X[number]>[] {
  return Object.keys(t.columns).filter((name) => !(except as readonly string[]).includes(name)) as Exclude<ColumnName<T>, X[number]>[];
}

/** `name type, …` of these columns, for `jsonb_to_recordset(?::jsonb) as x(…)`: JSON rows read with the table's types. */
export function recordsetColumns<T extends Table>(t: T, names: readonly ColumnName<T>[]): string {
  return names.map((name) => `${name} ${t.columns[name]!.type}`).join(', ');
}

/**
 * A row of the table as one jsonb value, for a statement that answers rows of several shapes in one column
 * list (a `union all`): `to_jsonb` of the row, with the numeric and bigint columns as text, exact (a JSON
 * number would come back as a double). Read back, it is a RowOf<T> whose timestamps are text. Columns cost
 * the reader at every execution (pg builds a parser per column of the answer, PostgreSQL an output function):
 * sixty columns of nulls beside each row of another shape are the dearer way.
 */
export function rowAsJson<T extends Table>(t: T, alias: string): string {
  const exact = Object.keys(t.columns).filter((name) => ['numeric', 'bigint'].includes(t.columns[name]!.type));
  if (exact.length === 0) return `to_jsonb(${alias})`;
  return `to_jsonb(${alias}) || jsonb_build_object(${exact.map((name) => `'${name}', ${alias}.${name}::text`).join(', ')})`;
}
