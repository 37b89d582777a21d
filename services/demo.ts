import type { EntityManager } from '@mikro-orm/postgresql';
import { Store } from '../db/entities/store.js';
import { createKey, createStore } from './stores.js';
import { insertProducts } from './catalog/create.js';
import { DEMO_PRODUCTS } from './catalog/demo-products.js';

export interface DemoStore {
  store: Store;
  secretKey: string;
  publishableKey: string;
}

/** On an empty database, creates a demo store with a secret and a publishable key and a few products; otherwise null. */
export async function seedDemoStore(em: EntityManager, publicUrl: string): Promise<DemoStore | null> {
  if ((await em.count(Store, {})) > 0) return null;
  const store = await createStore(em, { name: 'Demo Store', currency: 'USD', standardDeliveryFee: '5' });
  const secret = await createKey(em, store.id, { kind: 'secret', label: 'demo secret key' });
  const publishable = await createKey(em, store.id, { kind: 'publishable', label: 'demo publishable key', origins: [new URL(publicUrl).origin] });
  await insertProducts(em, store.id, DEMO_PRODUCTS);
  return { store, secretKey: secret.plain, publishableKey: publishable.plain };
}
