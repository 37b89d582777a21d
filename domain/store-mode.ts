import type { StoreMode } from './store.js';

/**
 * Whether a store's catalogue is open (products API, storefront, cart, checkout): published and in full
 * mode. A tracking_only store does orders and tracking only, so its catalogue answers as an unpublished
 * store's does; its products are kept, and come back when the store is in full mode again.
 */
export function sellsCatalogue(store: { published: boolean; mode: StoreMode }): boolean {
  return store.published && store.mode === 'full';
}
