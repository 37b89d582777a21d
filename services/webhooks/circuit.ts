// An endpoint's circuit kept on its row (docs/webhooks.md "Circuit breaker"): written by the dispatcher when
// it opens, when a probe fails and when it closes (never per delivery), read by the next run and the dashboard.
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared, runPrepared } from '../../db/prepared.js';
import type { CircuitChange } from '../../domain/circuit-breaker.js';
import type { WebhookEndpointRow } from '../../db/tables/webhook-endpoints.js';
import { SHARD_OF_STORE_SQL, type StoreShard } from './lane.js';

/** An endpoint whose circuit is open: since when, and when its last attempt failed. */
export interface OpenCircuit {
  endpointId: string;
  openSince: Date;
  failedAt: Date;
}

type OpenRow = Pick<WebhookEndpointRow, 'id' | 'circuit_open_since' | 'circuit_failed_at'>;
const toOpen = (r: OpenRow): OpenCircuit => ({
  endpointId: r.id,
  openSince: new Date(r.circuit_open_since!),
  failedAt: new Date(r.circuit_failed_at!),
});

/** The live endpoints of the shard's stores whose circuit is open. */
export async function openCircuitsOfShard(em: EntityManager, s: StoreShard): Promise<OpenCircuit[]> {
  return (await runPrepared<OpenRow>(em, OPEN_OF_SHARD, [s.shard, s.shards])).map(toOpen);
}
const OPEN_OF_SHARD = prepared(`select id, circuit_open_since, circuit_failed_at from webhook_endpoints
  where circuit_open_since is not null and deleted_at is null and ${SHARD_OF_STORE_SQL('$1', '$2')}`);

/** The live endpoints of one store whose circuit is open (the old per-store lane, and the dashboard). */
export async function openCircuitsOfStore(em: EntityManager, storeId: string): Promise<OpenCircuit[]> {
  return (await runPrepared<OpenRow>(em, OPEN_OF_STORE, [storeId])).map(toOpen);
}
const OPEN_OF_STORE = prepared(
  `select id, circuit_open_since, circuit_failed_at from webhook_endpoints where store_id = $1 and circuit_open_since is not null and deleted_at is null`,
);

/** Keeps a change of the endpoint's circuit on its row: opened (since now), another failed probe, or closed. */
export async function recordCircuitChange(em: EntityManager, endpointId: string, change: CircuitChange): Promise<void> {
  await runPrepared(em, CHANGE, [endpointId, change]);
}
const CHANGE = prepared(`update webhook_endpoints set
    circuit_open_since = case $2::text when 'closed' then null else coalesce(circuit_open_since, now()) end,
    circuit_failed_at = case $2::text when 'closed' then null else now() end
  where id = $1`);
