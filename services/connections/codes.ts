import { executeBound } from '../../db/bound.js';
import { writeTransaction } from '../../db/transaction.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../contract/errors.js';
import { enqueueHandOffs } from '../../db/outbox.js';
import { iso } from '../../domain/dates.js';
import { effectivePlan } from '../../domain/plan.js';
import { sealSecret } from '../../domain/secret-box.js';
import { shopHost } from '../../domain/shop-host.js';
import { CONNECTED_SHOPS_PER_PLAN, type StorePlan } from '../../domain/store.js';
import { generateWebhookSecret } from '../../domain/webhook-signature.js';
import { connectCodeExchanged } from '../../workflows/connections/definitions.js';
import { signalWithStart, startWorkflow } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';
import { createKey } from '../stores.js';
import { connectedStore } from './present.js';
import type { StoreRow } from '../../db/entities/store.js';
import type { ConnectCodeRow } from '../../db/tables/connect-codes.js';

export const PLATFORMS = ['platform_a', 'platform_b'] as const;
export type Platform = (typeof PLATFORMS)[number];

const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');

/**
 * Active connected shops of a store against its plan's allowance. With lock (inside the transaction that
 * adds a connection) the store row is locked first, so concurrent additions count one after another and
 * never pass the limit together; the count is a separate statement so it sees what the lock waited for.
 */
export async function connectionAllowance(em: EntityManager, storeId: string, lock = false) {
  if (lock) await executeBound(em, `select 1 from stores where id = ? for update`, [storeId]);
  const [row] = await executeBound<Pick<StoreRow, 'plan' | 'paid_until'> & { active: number }>(
    em,
    `select s.plan, s.paid_until, (select count(*)::int from connections c where c.store_id = s.id and c.status = 'active') as active from stores s where s.id = ?`,
    [storeId],
  );
  // Past a paid plan's end the free allowance applies at once: connections beyond it stay, new ones are refused.
  const plan = effectivePlan({ plan: row!.plan, paidUntil: row!.paid_until });
  const limit = CONNECTED_SHOPS_PER_PLAN[plan];
  return { plan, active: row!.active, limit, full: row!.active >= limit };
}

/** 409 conflict for a store at its plan's limit of connected shops: the owner must disconnect one or upgrade. */
export function planLimitReached(allowance: { plan: StorePlan; active: number; limit: number }): ApiError {
  return new ApiError(
    'conflict',
    `This store already has ${allowance.active} connected shop(s), the most its ${allowance.plan} plan allows (${allowance.limit}).`,
  );
}

/**
 * Issues a connect code on the owner's approval: long and random, stored only as a hash, valid ttl
 * seconds, single use, bound to the approved shop host. A workflow per code owns its expiry. A store at
 * its plan's limit is 409 conflict (planLimitReached).
 */
export async function approveConnection(
  em: EntityManager,
  input: { storeId: string; platform: Platform; siteUrl: string; shopName?: string | null; currency?: string | null; ttlSeconds: number },
): Promise<{ code: string; expires_at: string; codeId: string }> {
  const host = shopHost(input.siteUrl);
  if (!host) throw new ApiError('invalid_request', 'site_url must be an http(s) address.', 'site_url');
  return writeTransaction(em, async (tx) => {
    const allowance = await connectionAllowance(tx, input.storeId, true);
    if (allowance.full) throw planLimitReached(allowance);
    const code = randomBytes(32).toString('base64url');
    const codeId = randomUUID();
    const [row] = await executeBound<Pick<ConnectCodeRow, 'expires_at'>>(
      tx,
      `insert into connect_codes (id, code_hash, store_id, platform, site_host, site_url, shop_name, currency, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?)) returning expires_at`,
      [
        codeId,
        hashCode(code),
        input.storeId,
        input.platform,
        host,
        input.siteUrl,
        input.shopName ?? null,
        input.currency ?? null,
        input.ttlSeconds,
      ],
    );
    await enqueueHandOffs(tx, [
      startWorkflow(workflows.connectCode, {
        workflowId: workflowIds.connectCode(codeId),
        args: [{ codeId, storeId: input.storeId, ttlMs: input.ttlSeconds * 1000 }],
        searchAttributes: { StoreId: input.storeId },
        summary: `connect code for ${host} (${input.platform})`,
      }),
    ]);
    return { code, expires_at: iso(row!.expires_at), codeId };
  });
}

const refuse = (message: string, param?: string) => new ApiError('invalid_request', message, param);

/**
 * Exchanges a code for a connection key. The code is checked and consumed in one statement (so of two
 * racing exchanges exactly one wins), only for the approved host; any failure is 400.
 */
export async function exchangeCode(em: EntityManager, input: { code: string; siteUrl: string; secretsKey: Buffer; publicUrl: string }) {
  const host = shopHost(input.siteUrl);
  if (!host) throw refuse('site_url must be the shop’s http(s) address.', 'site_url');
  return writeTransaction(em, async (tx) => {
    const [code] = await executeBound<Pick<ConnectCodeRow, 'id' | 'store_id' | 'platform' | 'site_url' | 'shop_name' | 'currency'>>(
      tx,
      `update connect_codes set used_at = now()
       where code_hash = ? and used_at is null and expired_at is null and expires_at > now() and site_host = ?
       returning id, store_id, platform, site_url, shop_name, currency`,
      [hashCode(input.code), host],
    );
    if (!code) throw refuse('This code is unknown, already used, expired, or was issued for another shop address.', 'code');
    if ((await connectionAllowance(tx, code.store_id, true)).full)
      throw refuse('This store has reached its plan’s limit of connected shops.');
    const created = await createConnection(tx, {
      storeId: code.store_id,
      platform: code.platform,
      siteUrl: code.site_url,
      shopName: code.shop_name,
      currency: code.currency,
      secretsKey: input.secretsKey,
    });
    const connectionId = created.connection_id;
    await executeBound(tx, `update connect_codes set connection_id = ? where id = ?`, [connectionId, code.id]);
    await enqueueHandOffs(tx, [
      signalWithStart(workflows.connectCode, {
        workflowId: workflowIds.connectCode(code.id),
        args: [{ codeId: code.id, storeId: code.store_id, ttlMs: 0 }],
        signal: connectCodeExchanged,
        signalArgs: [{ connectionId }],
        searchAttributes: { StoreId: code.store_id, ConnectionId: connectionId },
      }),
    ]);
    return { ...created, store: await connectedStore(tx, code.store_id, input.publicUrl) };
  });
}

/**
 * Creates an active connection with its connection key and push signing secret (both shown once).
 * Used by the exchange, and by the dashboard's manual alternative (owner pastes key and secret into the plugin).
 */
export async function createConnection(
  tx: EntityManager,
  input: { storeId: string; platform: Platform; siteUrl: string; shopName?: string | null; currency?: string | null; secretsKey: Buffer },
) {
  const host = shopHost(input.siteUrl);
  if (!host) throw new ApiError('invalid_request', 'site_url must be an http(s) address.', 'site_url');
  const connectionId = randomUUID();
  const webhookSecret = generateWebhookSecret();
  await executeBound(
    tx,
    `insert into connections (id, store_id, platform, status, shop_url, shop_host, site_url, shop_name, currency, webhook_secret_sealed)
     values (?, ?, ?, 'active', ?, ?, ?, ?, ?, ?)`,
    [
      connectionId,
      input.storeId,
      input.platform,
      input.siteUrl,
      host,
      input.siteUrl,
      input.shopName ?? null,
      input.currency ?? null,
      sealSecret(input.secretsKey, webhookSecret),
    ],
  );
  const { plain } = await createKey(tx, input.storeId, { kind: 'secret', connectionId, label: `${input.platform} plugin at ${host}` });
  return { api_key: plain, webhook_secret: webhookSecret, connection_id: connectionId };
}

/** Marks a code expired when its time is up and it was not used (the code workflow's timer calls this). */
export async function expireCode(em: EntityManager, codeId: string): Promise<boolean> {
  const rows = await executeBound<Pick<ConnectCodeRow, 'id'>>(
    em,
    `update connect_codes set expired_at = now() where id = ? and used_at is null and expired_at is null returning id`,
    [codeId],
  );
  return rows.length > 0;
}
