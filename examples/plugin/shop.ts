import type { Update } from '@store-commerce/plugin-kit';

export type { Update };

/** What the plugin needs from the shop it lives in (platform_a or platform_b); here, an in-memory shop. */
export interface ShopOrder {
  externalId: string;
  number: string;
  status: string;
  tracking: { number: string | null; courier: string | null; url: string | null };
  trackingPageUrl: string | null;
  notes: string[];
}

/**
 * A shop's orders. Changes the plugin applies from the service are marked as such, so the shop's own
 * "order changed" hook does not send them back as new order changes (no echo).
 */
export class InMemoryShop {
  readonly orders = new Map<string, ShopOrder>();
  /** Update ids applied, kept beside the orders (the plugin's ledger): applying the same update again changes nothing. */
  readonly appliedUpdates = new Set<string>();
  /** Order changes the shop would report to the service (merchant edits), not the service's own. */
  readonly outgoingChanges: string[] = [];
  applyCount = 0;

  addOrder(order: ShopOrder) {
    this.orders.set(order.externalId, order);
  }

  /** Applies one update to its order; throws when the order is unknown here. The ledger makes it once only. */
  apply(update: Update): void {
    const order = this.orders.get(update.external_id);
    if (!order) throw new Error(`no order ${update.external_id} in this shop`);
    if (update.status) order.status = update.status === 'completed' ? 'delivered' : update.status;
    order.tracking = { ...update.tracking };
    order.trackingPageUrl = update.tracking_page_url;
    if (update.comment) order.notes.push(update.comment);
    this.applyCount++;
    // Deliberately no outgoingChanges.push(): this change came from the service.
  }

  /** A merchant edit in the shop's admin: this one is sent to the service. */
  merchantEdit(externalId: string, status: string) {
    this.orders.get(externalId)!.status = status;
    this.outgoingChanges.push(externalId);
  }
}
