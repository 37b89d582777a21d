// rowAsJson (db/tables/columns.ts): a row read back as one jsonb value is the row pg reads column by column,
// the exact types exact (numeric and bigint as their text) and timestamps as text naming the same moment.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { bigint, boolean, integer, jsonb, numeric, rowAsJson, table, text, timestamptz, uuid } from '../../db/tables/columns.js';

const SAMPLE = table('row_as_json_sample', {
  id: uuid(),
  name: text().nullable(),
  total: numeric(15, 4),
  refunded: numeric(15, 4).nullable(),
  counter: bigint(),
  version: integer(),
  archived: boolean(),
  items: jsonb<{ sku: string; unit_price: string }[]>(),
  created_at: timestamptz(),
});

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query(`create temp table row_as_json_sample (
    id uuid, name text, total numeric(15,4), refunded numeric(15,4), counter bigint, version integer, archived boolean, items jsonb, created_at timestamptz)`);
  // Values a double cannot hold (the numeric's 15 digits, a bigint past 2^53), microseconds, a null.
  await client.query(`insert into row_as_json_sample values
    ('5b0c7a4e-8d43-4f49-9a4b-0d6b8f7f2f11', null, 12345678901.2345, null, 9007199254740993, 7, true,
     '[{"sku": "A-1", "unit_price": "0.1000"}]', '2026-11-28 17:10:21.264123+00')`);
});
afterAll(async () => {
  await client.end();
});

it('gives the row pg reads column by column: numeric and bigint exact as text, the same moment, the same JSON', async () => {
  const {
    rows: [asColumns],
  } = await client.query(`select * from row_as_json_sample`);
  const {
    rows: [{ row: asJson }],
  } = await client.query(`select ${rowAsJson(SAMPLE, 's')} as row from row_as_json_sample s`);
  expect(asJson.total).toBe('12345678901.2345');
  expect(asJson.counter).toBe('9007199254740993');
  expect(asJson.refunded).toBeNull();
  expect(asJson.name).toBeNull();
  expect(new Date(asJson.created_at).getTime()).toBe(Date.parse('2026-11-28T17:10:21.264Z'));
  const { created_at: jsonMoment, ...jsonRest } = asJson;
  const { created_at: columnMoment, ...columnRest } = asColumns;
  expect(new Date(jsonMoment).getTime()).toBe((columnMoment as Date).getTime());
  expect(jsonRest).toEqual(columnRest);
});

it('is plain to_jsonb for a table without numeric or bigint columns', () => {
  expect(rowAsJson(table('t', { id: uuid(), at: timestamptz() }), 't')).toBe('to_jsonb(t)');
});
