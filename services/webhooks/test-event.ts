import { executeBound } from '../../db/bound.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../../domain/uuid.js';
import type { ClaimedDelivery } from './lane.js';
import type { RateLimitCounterRow } from '../../db/tables/rate-limit-counters.js';
import type { WebhookEndpointRow } from '../../db/tables/webhook-endpoints.js';

/** The kind of a test delivery (docs/webhooks.md, "Test events"); never an order event. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Test deliveries a store may send per minute, all its endpoints together (they spend the store's outbound budget). */
export const TEST_EVENTS_PER_MINUTE = 5;

/**
 * Counts one test delivery against the store's budget in a fixed one-minute window (shared by every API
 * process, like the key limits); the seconds to wait when the budget is spent, null when it may go.
 */
export async function reserveTestEvent(em: EntityManager, storeId: string): Promise<number | null> {
  const [row] = await executeBound<Pick<RateLimitCounterRow, 'count'> & { wait: number }>(
    em,
    `insert into rate_limit_counters as c (bucket, window_start, count)
     values (?, date_trunc('minute', now()), 1)
     on conflict (bucket, window_start) do update set count = c.count + 1
     returning c.count, ceil(extract(epoch from c.window_start + interval '1 minute' - now()))::int as wait`,
    [`webhook-test:${storeId}`],
  );
  return row!.count > TEST_EVENTS_PER_MINUTE ? Math.max(1, row!.wait) : null;
}

/**
 * A test delivery to a live endpoint of this store, shaped like a claimed delivery so the same sender signs
 * and posts it; its body, `{id, type: "webhook.test", created_at, data: {test: true, store, endpoint}}`.
 * Null for another store's, a deleted, an unknown or a malformed endpoint. Not recorded as a delivery.
 */
export async function testDelivery(
  em: EntityManager,
  store: { id: string; name: string },
  endpointId: string,
): Promise<{ claimed: ClaimedDelivery; body: Buffer } | null> {
  if (!isUuid(endpointId)) return null;
  const [row] = await executeBound<Pick<WebhookEndpointRow, 'id' | 'url' | 'secret_sealed'>>(
    em,
    `select id, url, secret_sealed from webhook_endpoints where id = ? and store_id = ? and deleted_at is null`,
    [endpointId, store.id],
  );
  if (!row) return null;
  const eventId = randomUUID();
  const createdAt = new Date();
  const body = Buffer.from(
    JSON.stringify({
      id: eventId,
      type: TEST_EVENT_TYPE,
      created_at: createdAt.toISOString(),
      data: { test: true, store: { id: store.id, name: store.name }, endpoint: { id: row.id, url: row.url } },
    }),
  );
  const claimed: ClaimedDelivery = {
    id: randomUUID(),
    endpointId: row.id,
    url: row.url,
    secretSealed: row.secret_sealed,
    eventId,
    eventType: TEST_EVENT_TYPE,
    eventCreatedAt: createdAt,
    payload: null,
    traceparent: null,
  };
  return { claimed, body };
}
