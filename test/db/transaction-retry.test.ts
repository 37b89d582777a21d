// A write whose transaction PostgreSQL rolls back for a concurrent one (a deadlock, a serialization
// failure) runs again inside the service before anyone answers 503 (issue 23, item 10; db/transaction.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { slugify } from '../../domain/store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { newEmail, PageClient } from '../dashboard/client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const waitingInserts = async () =>
  (
    await t.orm.em
      .fork()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike 'insert into owner_stores%'`,
      )
  )[0]!.n;

describe('a deadlocked write runs again before answering', () => {
  it(
    'a store created from the dashboard while another transaction deadlocks with it is created (303), not 503',
    { timeout: 120_000 },
    async () => {
      const c = new PageClient(t);
      const email = await c.signUp(newEmail('deadlock'));
      const [owner] = await t.orm.em.fork().execute<{ id: string }[]>(`select id from owners where email = ?`, [email]);
      const name = `Deadlock Shop ${process.pid} ${Date.now()}`;
      const other = new pg.Client({ connectionString: inject('databaseUrl') });
      await other.connect();
      try {
        // The other transaction holds the owner's row, so the creation's membership insert waits for it...
        await other.query('begin');
        await other.query(`set local deadlock_timeout = '60s'`);
        await other.query('select id from owners where id = $1 for update', [owner!.id]);
        const creation = c.post('/dashboard/stores', { name, currency: 'EUR' }, { from: '/dashboard' });
        await eventually(async () => (await waitingInserts()) > 0, 60_000, 'the creation waits for the owner row');
        // ...and then wants the slug the creation just took: each waits for the other, PostgreSQL ends the creation's try.
        const taking = other.query(
          `insert into stores (id, name, slug, currency, mode, plan, published, standard_delivery_fee)
         values (gen_random_uuid(), $1, $2, 'EUR', 'full', 'free', true, 0)`,
          [name, slugify(name)],
        );
        await taking;
        await other.query('commit');
        const res = await creation;
        expect(res.statusCode).toBe(303);
        const id = /\/dashboard\/stores\/([0-9a-f-]{36})/.exec(res.headers.location as string)?.[1];
        const [made] = await t.orm.em.fork().execute<{ slug: string }[]>(`select slug from stores where id = ?`, [id]);
        expect(made!.slug).toBe(`${slugify(name)}-2`);
      } finally {
        await other.query('rollback').catch(() => undefined);
        await other.end();
      }
    },
  );
});
