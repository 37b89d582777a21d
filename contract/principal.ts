import type { Scope } from '../domain/scopes.js';
import type { StoreMode, StorePlan } from '../domain/store.js';

/** Who is calling: the key's facts that routes need. */
export interface Principal {
  keyId: string;
  kind: 'secret' | 'publishable' | 'legacy';
  connectionId: string | null;
  storeId: string;
  plan: StorePlan;
  scopes: Scope[];
  origins: string[];
  /** Store facts most routes need, read in the same statement as the key. */
  storeSlug: string;
  storeName: string;
  storeCurrency: string;
  storeMode: StoreMode;
  /** Whether the catalogue is open (published and in full mode: domain/store-mode.ts), and the standard delivery fee (decimal text): the catalogue and checkout need no store read. */
  storePublished: boolean;
  storeDeliveryFee: string;
  /** The platform of a connection key's shop; null for other keys. */
  platform: 'platform_a' | 'platform_b' | null;
  /** The host of a connection key's shop (null for other keys, and for a connection made without one). */
  shopHost: string | null;
}
