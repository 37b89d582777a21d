// The tables MikroORM maps (db/entities/) are declared there, once, with defineEntity; hand-written SQL
// that reads them gets its row type from the entity through EntityRow, never from a second declaration.

/** `paidUntil` → `paid_until`: MikroORM's default naming strategy, in types. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** A value as pg hands it back: timestamptz as a Date or as the text PostgreSQL printed (new Date(value) reads both). */
type ColumnValue<V> = V extends Date ? Date | string : V;

/**
 * A row of an entity's table as hand-written SQL reads it: snake_case column names, a many-to-one
 * relation `store` as its `store_id`, nullable properties as `| null`. Pass the entity's relation
 * properties as `Relations` (their value type is an entity; only the key column is in the row).
 */
export type EntityRow<E, Relations extends keyof E & string = never> = {
  -readonly [K in Exclude<keyof E & string, Relations> as SnakeCase<K>]-?: ColumnValue<Exclude<E[K], undefined>>;
} & {
  -readonly [K in Relations as `${SnakeCase<K>}_id`]-?: string;
};
