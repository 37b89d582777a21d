import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/hand-off.js';

/** Registers our search attributes on the namespace; a no-op when they exist (dev server or cluster). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
    });
  } catch (err) {
    // Another worker registered them first.
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}
