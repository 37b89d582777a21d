import type { Principal } from '../../contract/principal.js';
import { defaultStatusKind, type OrderSource, type StatusKind } from '../../domain/order-status.js';
import type { OrderEditor } from './change.js';

/** Who is sending orders, as decided by the key (never by the body). */
export interface OrderSender {
  storeId: string;
  storeCurrency: string;
  /** 'api' for secret keys, the connection id for a connection key: external ids are unique per origin. */
  origin: string;
  source: OrderSource;
  connectionId: string | null;
  defaultKind: StatusKind;
  actor: string;
  publicUrl: string;
}

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
