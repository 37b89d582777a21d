import { executeBound } from '../../db/bound.js';
import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../contract/errors.js';
import type { TargetPolicy } from '../../domain/address-check.js';
import { shopHost } from '../../domain/shop-host.js';
import { checkTarget, type Resolver } from '../outbound/target.js';
import { findConnection } from './present.js';
import type { ConnectionRow } from '../../db/tables/connections.js';

export interface Heartbeat {
  plugin_version?: string | undefined;
  platform_version?: string | undefined;
  shop_name?: string | undefined;
  currency?: string | undefined;
  site_url?: string | undefined;
  push_url?: string | null | undefined;
}

/**
 * Records a plugin heartbeat. A site_url on another host than the connected one is 409 and changes
 * nothing (a staging copy must not feed the live store); a push_url must pass the webhook address rules.
 */
export async function recordHeartbeat(
  em: EntityManager,
  connectionId: string,
  beat: Heartbeat,
  opts: { policy: TargetPolicy; resolve: Resolver },
): Promise<ConnectionRow> {
  const current = (await findConnection(em, connectionId))!;
  if (beat.site_url !== undefined) {
    const host = shopHost(beat.site_url);
    if (!host) throw new ApiError('invalid_request', 'site_url must be an http(s) address.', 'site_url');
    if (current.shop_host && host !== current.shop_host) {
      throw new ApiError(
        'conflict',
        `This connection belongs to ${current.shop_host}, not ${host}; pause this copy of the shop (a staging site?) or connect it separately.`,
        'site_url',
      );
    }
  }
  if (beat.push_url) {
    const target = await checkTarget(beat.push_url, opts.policy, opts.resolve);
    if (!target.ok) throw new ApiError('invalid_request', `push_url ${target.reason}.`, 'push_url');
  }
  const [row] = await executeBound<ConnectionRow>(
    em,
    `update connections set
       plugin_version = coalesce(?, plugin_version), platform_version = coalesce(?, platform_version),
       shop_name = coalesce(?, shop_name), currency = coalesce(?, currency), site_url = coalesce(?, site_url),
       push_url = case when ? then ? else push_url end,
       status_detail = case when ? then (case when ?::text is null then 'pull only: the shop cannot be reached for pushes' else null end) else status_detail end,
       last_heartbeat_at = now(), updated_at = now()
     where id = ? returning *`,
    [
      beat.plugin_version ?? null,
      beat.platform_version ?? null,
      beat.shop_name ?? null,
      beat.currency?.toUpperCase() ?? null,
      beat.site_url ?? null,
      beat.push_url !== undefined,
      beat.push_url ?? null,
      beat.push_url !== undefined,
      beat.push_url ?? null,
      connectionId,
    ],
  );
  return row!;
}

/** Disconnects: the connection's keys stop working from the next request, pushes stop, copied orders stay. */
export async function disconnect(em: EntityManager, connectionId: string): Promise<void> {
  await writeTransaction(em, async (tx) => {
    await executeBound(
      tx,
      `update connections set status = 'disconnected', disconnected_at = now(), status_detail = 'disconnected by the plugin', updated_at = now() where id = ?`,
      [connectionId],
    );
    await executeBound(tx, `update api_keys set revoked_at = coalesce(revoked_at, now()) where connection_id = ?`, [connectionId]);
  });
}
