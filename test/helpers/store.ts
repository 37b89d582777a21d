import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { createKey, createStore, type NewStore } from '../../services/stores.js';
import type { Store } from '../../db/entities/store.js';

export interface TestStore {
  store: Store;
  /** A secret key with the default scopes. */
  secret: string;
  /** A publishable key allowed on https://shop.example. */
  publishable: string;
  origin: string;
}

let counter = 0;

/** A store with a default secret key and a publishable key, in one line. */
export async function createTestStore(orm: MikroORM, input: Partial<NewStore> = {}): Promise<TestStore> {
  const em = orm.em.fork();
  const store = await createStore(em, { name: input.name ?? `Test Store ${process.pid}-${++counter}`, ...input });
  const origin = 'https://shop.example';
  const secret = await createKey(em, store.id, { kind: 'secret' });
  const publishable = await createKey(em, store.id, { kind: 'publishable', origins: [origin] });
  return { store, secret: secret.plain, publishable: publishable.plain, origin };
}

/** Another key for a store. */
export async function addKey(orm: MikroORM, storeId: string, input: Parameters<typeof createKey>[2]) {
  const { key, plain } = await createKey(orm.em.fork(), storeId, input);
  return { id: key.id, key: plain };
}

/** A connected shop of the store on a platform, with its connection key. */
export async function createTestConnection(
  orm: MikroORM,
  storeId: string,
  platform: 'platform_a' | 'platform_b',
  shopUrl = 'https://shop-a.example',
) {
  const em = orm.em.fork();
  const id = crypto.randomUUID();
  await em.execute(`insert into connections (id, store_id, platform, status, shop_url) values (?, ?, ?, 'active', ?)`, [
    id,
    storeId,
    platform,
    shopUrl,
  ]);
  const { plain } = await createKey(em, storeId, { kind: 'secret', connectionId: id });
  return { id, key: plain };
}

/** A test store with one loopback webhook endpoint (at `url`) that takes every event kind. */
export async function createHookedStore(orm: MikroORM, url: string): Promise<TestStore> {
  const s = await createTestStore(orm);
  await createEndpoint(orm.em.fork(), {
    storeId: s.store.id,
    url,
    events: ['*'],
    secretsKey: Buffer.from(inject('secretsKey'), 'hex'),
    policy: { allowLoopback: true },
  });
  return s;
}
