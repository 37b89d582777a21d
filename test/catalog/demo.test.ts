import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../db/orm.js';
import { seedDemoStore } from '../../services/demo.js';
import { findStore, listCategories, listProducts } from '../../services/catalog/read.js';
import { createIsolatedDatabase } from '../helpers/isolated.js';

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let orm: MikroORM;
beforeAll(async () => {
  db = await createIsolatedDatabase();
  orm = await openOrm({ databaseUrl: db.url, poolMax: 2 });
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

describe('npm start creates a demo store with a few products (CONTRACT.md)', () => {
  it('on an empty database the demo store sells a few products: stock, variants, free delivery and a digital good', async () => {
    const demo = await seedDemoStore(orm.em.fork(), 'http://127.0.0.1:3000');
    expect(demo).not.toBeNull();
    const em = orm.em.fork();
    const store = (await findStore(em, { id: demo!.store.id }))!;
    expect(store.published).toBe(true);
    const { data } = await listProducts(em, store, { limit: 100 }, 'http://127.0.0.1:3000');
    expect(data.length).toBeGreaterThanOrEqual(3);
    expect(data.every((p) => p.in_stock && p.url.startsWith(`http://127.0.0.1:3000/s/${store.slug}/products/`))).toBe(true);
    expect(data.some((p) => p.variants.length > 1)).toBe(true);
    expect(data.some((p) => p.delivery_fee === 0)).toBe(true);
    expect(data.some((p) => p.type === 'digital')).toBe(true);
    expect(await listCategories(em, store.id)).toEqual(['Gifts', 'Guides', 'Tea', 'Teaware']);
    expect(await seedDemoStore(orm.em.fork(), 'http://127.0.0.1:3000')).toBeNull();
  });
});
