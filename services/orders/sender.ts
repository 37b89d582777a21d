import type { Principal } from '../../contract/principal.js';
import { defaultStatusKind, type OrderSource, type StatusKind } from '../../domain/order-status.js';
import type { OrderEditor } from './change.js';

/** Who is sending orders, as decided by the key (never by the body). */
export interface OrderSender {
  storeId: string;
  storeCurrency: string;
  /** Where external ids are unique: 'api' for secret keys, `<platform>:<shop host>` for a connection key (see originOf). */
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
    origin: originOf(principal),
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

/**
 * A shop's orders are one set per store, platform and site host, whichever of its connections sent them:
 * a shop that disconnects and connects again re-sends the same orders and updates them (spec: "Re-sending
 * the same one updates the order"). A connection without a host (none is made so today) keeps its own set.
 */
export function originOf(principal: Pick<Principal, 'connectionId' | 'platform' | 'shopHost'>): string {
  if (!principal.connectionId) return 'api';
  return principal.platform && principal.shopHost ? `${principal.platform}:${principal.shopHost}` : principal.connectionId;
}

const actorOf = (p: Principal) => (p.connectionId ? `connection:${p.connectionId}` : `key:${p.keyId}`);
