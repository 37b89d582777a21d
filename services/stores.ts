import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../db/entities/api-key.js';
import { Store } from '../db/entities/store.js';
import { displayPrefix, generateKey, hashKey } from '../domain/api-keys.js';
import { scopesForNewKey, CONNECTION_SCOPES, type KeyKindInput } from '../domain/scopes.js';
import { slugify, type StoreMode, type StorePlan } from '../domain/store.js';

export interface NewStore {
  name: string;
  plan?: StorePlan;
  currency?: string;
  mode?: StoreMode;
  standardDeliveryFee?: string;
}

/** Creates a published store with a unique slug derived from its name. */
export async function createStore(em: EntityManager, input: NewStore): Promise<Store> {
  const base = slugify(input.name);
  let slug = base;
  for (let n = 2; await em.count(Store, { slug }); n++) slug = `${base}-${n}`;
  const store = em.create(Store, {
    id: randomUUID(),
    name: input.name,
    slug,
    currency: (input.currency ?? 'USD').toUpperCase(),
    mode: input.mode ?? 'full',
    plan: input.plan ?? 'free',
    published: true,
    standardDeliveryFee: input.standardDeliveryFee ?? '0',
  });
  await em.flush();
  return store;
}

/** Moves a store to another plan; rate limits follow from the next request, since each request reads the plan. */
export async function setStorePlan(em: EntityManager, storeId: string, plan: StorePlan): Promise<Store | null> {
  const store = await em.findOne(Store, storeId);
  if (!store) return null;
  store.plan = plan;
  await em.flush();
  return store;
}

/** A store and all its keys, revoked ones included, oldest first; null when no such store. */
export async function findStoreWithKeys(em: EntityManager, storeId: string): Promise<{ store: Store; keys: ApiKey[] } | null> {
  const store = await em.findOne(Store, storeId);
  if (!store) return null;
  const keys = await em.find(ApiKey, { store: storeId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { store, keys };
}

export interface NewKey {
  kind: KeyKindInput;
  scopes?: string[];
  origins?: string[];
  label?: string;
  /** Binds the key to a connected shop: it becomes a connection key with the fixed connection scopes. */
  connectionId?: string;
}

/** Creates a key; the plain key is returned here only, and only its hash is stored. */
export async function createKey(em: EntityManager, storeId: string, input: NewKey): Promise<{ key: ApiKey; plain: string }> {
  // A connection key is a secret key bound to a connection; no other kind may be bound.
  if (input.connectionId && input.kind !== 'secret') throw new RangeError('only a secret key can be a connection key');
  const plain = generateKey(input.kind);
  const scopes = input.connectionId ? [...CONNECTION_SCOPES] : scopesForNewKey(input.kind, input.scopes);
  const key = em.create(ApiKey, {
    id: randomUUID(),
    store: em.getReference(Store, storeId),
    kind: input.kind,
    keyHash: hashKey(plain),
    prefix: displayPrefix(plain),
    scopes,
    origins: input.kind === 'publishable' ? (input.origins ?? []).map(normalizeOrigin) : [],
    connectionId: input.connectionId ?? null,
    label: input.label ?? null,
  });
  await em.flush();
  return { key, plain };
}

/** Revokes a key; effective from the next request, since every request looks the key up. */
export async function revokeKey(em: EntityManager, keyId: string): Promise<ApiKey | null> {
  const key = await em.findOne(ApiKey, keyId);
  if (!key) return null;
  key.revokedAt ??= new Date();
  await em.flush();
  return key;
}

/** An allowed website as browsers send it in Origin: scheme://host[:port], no path. Throws on anything else. */
export function normalizeOrigin(text: string): string {
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RangeError(`not a web origin: ${text}`);
  if (url.pathname !== '/' || url.search || url.hash || url.username) throw new RangeError(`an origin has no path, query or credentials: ${text}`);
  return url.origin;
}
