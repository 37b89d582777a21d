import { executeBound } from '../../db/bound.js';
import { writeTransaction } from '../../db/transaction.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../contract/errors.js';
import { iso } from '../../domain/dates.js';
import { sealSecret } from '../../domain/secret-box.js';
import { isUuid } from '../../domain/uuid.js';
import { generateWebhookSecret } from '../../domain/webhook-signature.js';
import type { TargetPolicy } from '../../domain/address-check.js';
import { checkTarget, type Resolver } from '../outbound/target.js';
import type { WebhookEndpointRow } from '../../db/tables/webhook-endpoints.js';

/** Endpoints a store may have at once (our choice; 409 beyond it). */
export const MAX_ENDPOINTS_PER_STORE = 10;

type EndpointRow = Pick<WebhookEndpointRow, 'id' | 'url' | 'events' | 'active' | 'created_at'>;

const view = (row: EndpointRow) => ({ id: row.id, url: row.url, events: row.events, active: row.active, created_at: iso(row.created_at) });

/**
 * Registers an endpoint: the URL must be a public https address (checked by resolving it now, and
 * again at every send). Returns the whsec_ secret, shown only here and stored encrypted.
 */
export async function createEndpoint(
  em: EntityManager,
  input: { storeId: string; url: string; events: string[]; secretsKey: Buffer; policy: TargetPolicy; resolve?: Resolver },
) {
  const target = await checkTarget(input.url, input.policy, input.resolve);
  if (!target.ok) throw new ApiError('invalid_request', `url ${target.reason}.`, 'url');
  const url = target.url.toString();
  const secret = generateWebhookSecret();
  const id = randomUUID();
  return writeTransaction(em, async (tx) => {
    // Serialises creations per store, so the count check below cannot be raced past.
    await executeBound(tx, `select id from stores where id = ? for update`, [input.storeId]);
    const [{ n }] = (await executeBound<{ n: number }>(
      tx,
      `select count(*)::int as n from webhook_endpoints where store_id = ? and deleted_at is null`,
      [input.storeId],
    )) as [{ n: number }];
    if (n >= MAX_ENDPOINTS_PER_STORE)
      throw new ApiError('conflict', `A store may have at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints; delete one first.`);
    const rows = await executeBound<EndpointRow>(
      tx,
      `insert into webhook_endpoints (id, store_id, url, events, secret_sealed) values (?, ?, ?, ?::text[], ?)
       on conflict (store_id, url) where deleted_at is null do nothing
       returning id, url, events, active, created_at`,
      [id, input.storeId, url, input.events, sealSecret(input.secretsKey, secret)],
    );
    if (rows.length === 0) throw new ApiError('conflict', 'This URL is already registered as a webhook endpoint of this store.', 'url');
    const { active: _a, created_at: _c, ...created } = view(rows[0]!);
    return { ...created, secret };
  });
}

/** The store's endpoints, newest first, never with their secrets. */
export async function listEndpoints(em: EntityManager, storeId: string) {
  const rows = await executeBound<EndpointRow>(
    em,
    `select id, url, events, active, created_at from webhook_endpoints where store_id = ? and deleted_at is null order by created_at desc, id desc`,
    [storeId],
  );
  return rows.map(view);
}

/** Removes an endpoint: nothing more is sent to it, including deliveries already queued (they are cancelled). */
export async function deleteEndpoint(em: EntityManager, storeId: string, id: string) {
  // Only a well-formed uuid can name an endpoint (anything else would fail the cast in PostgreSQL).
  if (!isUuid(id)) throw notFound('webhook');
  return writeTransaction(em, async (tx) => {
    const rows = await executeBound<Pick<WebhookEndpointRow, 'id'>>(
      tx,
      `update webhook_endpoints set active = false, deleted_at = now() where id = ? and store_id = ? and deleted_at is null returning id`,
      [id, storeId],
    );
    if (rows.length === 0) throw notFound('webhook');
    await executeBound(
      tx,
      `update webhook_deliveries set status = 'cancelled', error = 'endpoint deleted', finished_at = now() where store_id = ? and endpoint_id = ? and status = 'pending' and finished_at is null`,
      [storeId, id],
    );
    return { id, deleted: true as const };
  });
}
