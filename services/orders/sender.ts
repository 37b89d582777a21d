import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../api/auth/lookup.js';
import { defaultStatusKind, type OrderSource } from '../../domain/order-status.js';
import type { OrderEditor } from './change.js';
import type { OrderSender } from './upsert.js';

/** Who a key speaks for when it sends orders: the source and origin come from the key, never the body. */
export async function orderSenderFor(em: EntityManager, principal: Principal, publicUrl: string): Promise<OrderSender> {
  const [row] = await em.execute<{ currency: string; platform: 'platform_a' | 'platform_b' | null }[]>(
    `select s.currency, c.platform from stores s left join connections c on c.id = ?::uuid and c.store_id = s.id where s.id = ?`,
    [principal.connectionId, principal.storeId],
  );
  const platform = row?.platform ?? null;
  return {
    storeId: principal.storeId,
    storeCurrency: row?.currency ?? 'USD',
    origin: principal.connectionId ?? 'api',
    source: (platform ?? 'api') as OrderSource,
    connectionId: principal.connectionId,
    defaultKind: defaultStatusKind(platform),
    actor: actorOf(principal),
    publicUrl,
  };
}

/** The editor of a service-side change made with this key. */
export function orderEditorFor(principal: Principal, publicUrl: string): OrderEditor {
  return { storeId: principal.storeId, connectionId: principal.connectionId, actor: actorOf(principal), publicUrl };
}

const actorOf = (p: Principal) => (p.connectionId ? `connection:${p.connectionId}` : `key:${p.keyId}`);
