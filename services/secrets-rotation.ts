import { executeBound } from '../db/bound.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { openSecretWith, sealSecret } from '../domain/secret-box.js';

/**
 * The columns that hold sealed secrets: endpoints' signing secrets, connected shops' push secrets, stores'
 * chat API tokens and the service's VAPID private key; each with its row's key column and that column's type.
 */
const SEALED_COLUMNS = [
  { table: 'webhook_endpoints', column: 'secret_sealed', key: 'id', type: 'uuid' },
  { table: 'connections', column: 'webhook_secret_sealed', key: 'id', type: 'uuid' },
  { table: 'chat_settings', column: 'token_sealed', key: 'store_id', type: 'uuid' },
  { table: 'vapid_keys', column: 'private_key_sealed', key: 'id', type: 'smallint' },
] as const;

export interface ResealResult {
  /** Rows moved to the current key, per table. */
  resealed: Record<(typeof SEALED_COLUMNS)[number]['table'], number>;
  /** Rows that no given key opens (left as they are). */
  unreadable: number;
}

/**
 * Seals again with `keys[0]` (SECRETS_KEY) every stored secret that only a later key (SECRETS_KEY_PREVIOUS)
 * opens; secrets already under the current key are left alone, so running it twice changes nothing. Each
 * row is written only if it still holds what was read (a secret replaced meanwhile is not overwritten).
 */
export async function resealSecrets(em: EntityManager, keys: readonly Buffer[]): Promise<ResealResult> {
  const result: ResealResult = { resealed: { webhook_endpoints: 0, connections: 0, chat_settings: 0, vapid_keys: 0 }, unreadable: 0 };
  for (const { table, column, key, type } of SEALED_COLUMNS) {
    const rows = await executeBound<{ id: string; sealed: string }>(
      em,
      `select ${key}::text as id, ${column} as sealed from ${table} where ${column} is not null order by ${key}`,
    );
    for (const row of rows) {
      let opened: ReturnType<typeof openSecretWith>;
      try {
        opened = openSecretWith(keys, row.sealed);
      } catch {
        result.unreadable++;
        continue;
      }
      if (opened.keyIndex === 0) continue;
      const [changed] = await executeBound<{ n: number }>(
        em,
        `with moved as (update ${table} set ${column} = ? where ${key} = ?::${type} and ${column} = ? returning 1) select count(*)::int as n from moved`,
        [sealSecret(keys[0]!, opened.plain), row.id, row.sealed],
      );
      result.resealed[table] += changed!.n;
    }
  }
  return result;
}
