import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { ExternalProductInput } from '../../contract/schemas/external-products.js';
import { toNumericText } from '../../domain/money.js';
import { cleanMultiline, cleanText } from '../../domain/text.js';
import type { ExternalProductRow } from '../../db/tables/external-products.js';

/** The connected shop that sends its products: a connection key's store and connection. */
export interface ExternalSender {
  storeId: string;
  connectionId: string;
}

export interface ExternalResult {
  external_id: string | null;
  ok: boolean;
  error?: string;
}

const money = (n: number | null | undefined) => (n == null ? null : toNumericText(n));

function toRow(p: ExternalProductInput) {
  return {
    external_id: cleanText(p.external_id) ?? p.external_id,
    name: cleanText(p.name) ?? p.name.trim(),
    sku: cleanText(p.sku) ?? null,
    currency: p.currency ?? null,
    category: cleanText(p.category) ?? null,
    description: cleanMultiline(p.description) ?? null,
    status: cleanText(p.status) ?? null,
    price: money(p.price),
    stock: money(p.stock),
    image_url: p.image_url ?? null,
    url: p.url ?? null,
    images: p.images ?? [],
    source_updated_at: p.updated_at ?? null,
  };
}

const COLUMNS = `external_id text, name text, sku text, currency text, category text, description text, status text,
  price numeric, stock numeric, image_url text, url text, images text[], source_updated_at timestamptz`;
const NAMES = COLUMNS.split(',').map((c) => c.trim().split(' ')[0]!);

/**
 * Upserts a connected shop's products by external id, one result per input in input order; each input
 * is validated on its own, so one bad product never fails the rest. The same external id twice: the
 * later one is kept. A copy older (updated_at) than the one held changes nothing.
 */
export async function upsertExternalProducts(em: EntityManager, sender: ExternalSender, inputs: unknown[]): Promise<ExternalResult[]> {
  const rows = new Map<string, ReturnType<typeof toRow>>();
  const results = inputs.map((raw): ExternalResult => {
    const id = (raw as { external_id?: unknown } | null)?.external_id;
    const externalId = typeof id === 'string' || typeof id === 'number' ? String(id) : null;
    const parsed = ExternalProductInput.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const param = issue.path.join('.');
      return { external_id: externalId, ok: false, error: `${param ? `${param}: ` : ''}${issue.message}` };
    }
    const row = toRow(parsed.data);
    rows.delete(row.external_id);
    rows.set(row.external_id, row);
    return { external_id: row.external_id, ok: true };
  });
  if (rows.size === 0) return results;
  // Sorted so that two batches sharing external ids lock their rows in the same order.
  const sorted = [...rows.values()].sort((a, b) => (a.external_id < b.external_id ? -1 : 1));
  await executeBound(
    em,
    `insert into external_products as p (connection_id, store_id, ${NAMES.join(', ')})
     select ?::uuid, ?::uuid, ${NAMES.map((n) => `x.${n}`).join(', ')} from jsonb_to_recordset(?::jsonb) as x(${COLUMNS})
     on conflict (connection_id, external_id) do update set
       ${NAMES.filter((n) => n !== 'external_id')
         .map((n) => `${n} = excluded.${n}`)
         .join(', ')}, updated_at = now()
     where excluded.source_updated_at is null or p.source_updated_at is null or excluded.source_updated_at >= p.source_updated_at`,
    [sender.connectionId, sender.storeId, JSON.stringify(sorted)],
  );
  return results;
}

/** Removes one of the connection's products by external id; false when it held none by that id. */
export async function deleteExternalProduct(em: EntityManager, sender: ExternalSender, externalId: string): Promise<boolean> {
  const rows = await executeBound<Pick<ExternalProductRow, 'external_id'>>(
    em,
    `delete from external_products where connection_id = ? and external_id = ? returning external_id`,
    [sender.connectionId, externalId],
  );
  return rows.length > 0;
}
