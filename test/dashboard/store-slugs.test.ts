// A store's slug is its own, also when many stores of one name are created at once (the fuzz test once
// got a 500 from two dashboard creations racing for one slug).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnedStore } from '../../services/accounts/stores.js';
import { signUp } from '../../services/accounts/owners.js';
import { createStore } from '../../services/stores.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { sql } from '../orders/fixtures.js';
import { newEmail, PageClient, PASSWORD } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const slugsOf = async (ids: string[]) =>
  (await sql<{ slug: string }>(t, 'select slug from stores where id = any(?::uuid[])', [`{${ids.join(',')}}`])).map((r) => r.slug);

describe('concurrent creations of stores with the same name', () => {
  it('20 at once from the dashboard all succeed, each with a slug of its own', async () => {
    const c = new PageClient(t);
    await c.signUp();
    const name = `Race Shop ${process.pid} ${Date.now()}`;
    const ids = await Promise.all(Array.from({ length: 20 }, () => c.createStore(name)));
    const slugs = await slugsOf(ids);
    expect(new Set(ids).size).toBe(20);
    expect(new Set(slugs).size).toBe(20);
    const base = name.toLowerCase().replaceAll(' ', '-');
    expect(slugs.sort()).toEqual([base, ...Array.from({ length: 19 }, (_, i) => `${base}-${i + 2}`)].sort());
  });

  it('the CLI’s and the connect page’s ways (in a transaction or not) share the slugs the same way', async () => {
    const owner = await signUp(t.orm.em.fork(), newEmail('slugs'), PASSWORD);
    const name = `Race Mixed ${process.pid} ${Date.now()}`;
    const ids = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const em = t.orm.em.fork();
        if (i % 3 === 0) return createOwnedStore(em, owner.id, { name });
        if (i % 3 === 1) return em.transactional(async (tx) => (await createStore(tx, { name })).id);
        return (await createStore(em, { name })).id;
      }),
    );
    expect(new Set(await slugsOf(ids)).size).toBe(20);
  });
});
