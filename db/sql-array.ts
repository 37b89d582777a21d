/**
 * A PostgreSQL array literal of texts, for `= any(?::text[])`. A literal array lets the planner use an
 * index whatever its statistics say; a `jsonb_array_elements_text` subquery can make it scan the table.
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
