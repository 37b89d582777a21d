import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../contract/errors.js';
import { signUp } from './accounts/owners.js';
import { addOwnerToStore } from './accounts/stores.js';
import type { Store } from '../db/entities/store.js';
import { anyStoreExists, createKey, createStore } from './stores.js';
import { insertProducts } from './catalog/create.js';
import { DEMO_PRODUCTS } from './catalog/demo-products.js';

export interface DemoStore {
  store: Store;
  secretKey: string;
  publishableKey: string;
  /** The demo owner's dashboard sign-in. */
  owner: { email: string; password: string };
}

export const DEMO_OWNER_EMAIL = 'owner@demo.example';

/** On an empty database, creates a demo store with a secret and a publishable key a few products,
 * and an owner account for the dashboard; otherwise null. */
export async function seedDemoStore(em: EntityManager, publicUrl: string): Promise<DemoStore | null> {
  if (await anyStoreExists(em)) return null;
  const store = await createStore(em, { name: 'Demo Store', currency: 'USD', standardDeliveryFee: '5' });
  const secret = await createKey(em, store.id, { kind: 'secret', label: 'demo secret key' });
  const publishable = await createKey(em, store.id, {
    kind: 'publishable',
    label: 'demo publishable key',
    origins: [new URL(publicUrl).origin],
  });
  await insertProducts(em, store.id, DEMO_PRODUCTS);
  const password = randomBytes(12).toString('base64url');
  // An account left by an earlier demo keeps its own password: it is not made the owner of this one.
  const owner = await signUp(em, DEMO_OWNER_EMAIL, password).catch((err: unknown) => {
    if (err instanceof ApiError) return null;
    throw err;
  });
  if (owner) await addOwnerToStore(em, owner.id, store.id);
  return { store, secretKey: secret.plain, publishableKey: publishable.plain, owner: { email: DEMO_OWNER_EMAIL, password } };
}
