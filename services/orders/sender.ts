import type { Principal } from '../../contract/principal.js';
import { defaultStatusKind } from '../../domain/order-status.js';
import type { OrderEditor } from './change.js';
import type { OrderSender } from './upsert.js';

/** Who a key speaks for when it sends orders: the source and origin come from the key, never the body. */
export function orderSenderFor(principal: Principal, publicUrl: string): OrderSender {
  return {
    storeId: principal.storeId,
    storeCurrency: principal.storeCurrency,
    origin: principal.connectionId ?? 'api',
    source: principal.platform ?? 'api',
    connectionId: principal.connectionId,
    defaultKind: defaultStatusKind(principal.platform),
    actor: actorOf(principal),
    publicUrl,
  };
}

/** The editor of a service-side change made with this key. */
export function orderEditorFor(principal: Principal, publicUrl: string): OrderEditor {
  return { storeId: principal.storeId, connectionId: principal.connectionId, actor: actorOf(principal), publicUrl };
}

const actorOf = (p: Principal) => (p.connectionId ? `connection:${p.connectionId}` : `key:${p.keyId}`);
