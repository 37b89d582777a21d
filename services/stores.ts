import { randomUUID } from 'node:crypto';
import type { EntityDictionary, EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../contract/errors.js';
import { executeBound } from '../db/bound.js';
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

// The store with the first slug of its name that no store has (base, base-2, base-3, …) as this
// statement's snapshot sees it. `on conflict do nothing` waits for a concurrent insert of the same slug
// and then gives no row (never an error, so a caller's transaction survives): the next attempt, a new
// snapshot, sees that store and takes the next free slug.
const INSERT_STORE = `insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee)
  select ?, ?, coalesce(
      (select b.slug from (select ?::text as slug) b where not exists (select 1 from stores where slug = b.slug)),
      (select ? || '-' || n from generate_series(2, 1000000) n where not exists (select 1 from stores where slug = ? || '-' || n) limit 1)
    ), ?, ?, ?, true, ?::numeric
  on conflict (slug) do nothing
  returning *`;
// Each lost race means another store of this name was just created; this many at once is an attack, not a shop.
const MAX_SLUG_ATTEMPTS = 100;

/** Creates a published store with a slug of its own derived from its name, also when many of that name are created at once. */
export async function createStore(em: EntityManager, input: NewStore): Promise<Store> {
  const base = slugify(input.name);
  const values = [
    randomUUID(),
    input.name,
    base,
    base,
    base,
    (input.currency ?? 'USD').toUpperCase(),
    input.mode ?? 'full',
    input.plan ?? 'free',
    input.standardDeliveryFee ?? '0',
  ];
  for (let attempt = 1; attempt <= MAX_SLUG_ATTEMPTS; attempt++) {
    const [row] = await executeBound<EntityDictionary<Store>>(em, INSERT_STORE, values);
    if (row) return em.map(Store, row);
  }
  throw new Error(`no free slug for ${base} after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/** A store and all its keys, revoked ones included, oldest first; null when no such store. */
export async function findStoreWithKeys(em: EntityManager, storeId: string): Promise<{ store: Store; keys: ApiKey[] } | null> {
  const [row] = await executeBound<EntityDictionary<Store>>(em, `select * from stores where id = ?`, [storeId]);
  if (!row) return null;
  const keys = await executeBound<EntityDictionary<ApiKey>>(em, `select * from api_keys where store_id = ? order by created_at, id`, [
    storeId,
  ]);
  return { store: em.map(Store, row), keys: keys.map((key) => em.map(ApiKey, key)) };
}

/** Every store, oldest first. */
export async function listStores(em: EntityManager): Promise<Store[]> {
  const rows = await executeBound<EntityDictionary<Store>>(em, `select * from stores order by created_at, id`);
  return rows.map((row) => em.map(Store, row));
}

/** Whether a store with this id exists. */
export async function storeExists(em: EntityManager, storeId: string): Promise<boolean> {
  const [row] = await executeBound<{ found: boolean }>(em, `select exists (select 1 from stores where id = ?) as found`, [storeId]);
  return row!.found;
}

/** Whether any store exists at all. */
export async function anyStoreExists(em: EntityManager): Promise<boolean> {
  const [row] = await executeBound<{ found: boolean }>(em, `select exists (select 1 from stores) as found`);
  return row!.found;
}

export interface NewKey {
  kind: KeyKindInput;
  scopes?: string[];
  origins?: string[];
  label?: string;
  /** Binds the key to a connected shop: it becomes a connection key with the fixed connection scopes. */
  connectionId?: string;
}

/** Creates a key; the plain key is returned here only, and only its hash is stored. A scope or website the kind may not have is 400 naming it. */
export async function createKey(em: EntityManager, storeId: string, input: NewKey): Promise<{ key: ApiKey; plain: string }> {
  // A connection key is a secret key bound to a connection; no other kind may be bound.
  if (input.connectionId && input.kind !== 'secret')
    throw new ApiError('invalid_request', 'only a secret key can be a connection key', 'kind');
  const plain = generateKey(input.kind);
  const scopes = input.connectionId ? [...CONNECTION_SCOPES] : scopesFor(input.kind, input.scopes);
  const [row] = await executeBound<EntityDictionary<ApiKey>>(
    em,
    `insert into api_keys (id, store_id, kind, key_hash, prefix, scopes, origins, connection_id, label)
     values (?, ?, ?, ?, ?, ?::text[], ?::text[], ?, ?) returning *`,
    [
      randomUUID(),
      storeId,
      input.kind,
      hashKey(plain),
      displayPrefix(plain),
      scopes,
      input.kind === 'publishable' ? (input.origins ?? []).map(normalizeOrigin) : [],
      input.connectionId ?? null,
      input.label ?? null,
    ],
  );
  return { key: em.map(ApiKey, row!), plain };
}

/** Revokes a key; effective from the next request, since every request looks the key up. */
export async function revokeKey(em: EntityManager, keyId: string): Promise<ApiKey | null> {
  const [row] = await executeBound<EntityDictionary<ApiKey>>(
    em,
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ? returning *`,
    [keyId],
  );
  return row ? em.map(ApiKey, row) : null;
}

/** An allowed website as browsers send it in Origin: scheme://host[:port], no path; anything else is 400 naming origins. */
export function normalizeOrigin(text: string): string {
  const url = URL.parse(text);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new ApiError('invalid_request', `not a web origin: ${text}`, 'origins');
  if (url.pathname !== '/' || url.search || url.hash || url.username)
    throw new ApiError('invalid_request', `an origin has no path, query or credentials: ${text}`, 'origins');
  return url.origin;
}

/** The scopes of a new key (domain/scopes.ts); one the kind may not hold is 400 naming scopes. */
function scopesFor(kind: KeyKindInput, requested: string[] | undefined) {
  try {
    return scopesForNewKey(kind, requested);
  } catch (err) {
    if (err instanceof RangeError) throw new ApiError('invalid_request', err.message, 'scopes');
    throw err;
  }
}
