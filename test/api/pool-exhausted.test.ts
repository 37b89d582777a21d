import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

// An overloaded API (every database connection of its process busy for longer than the pool's 5 s
// connection timeout, db/orm.ts) answers 503 unavailable with Retry-After, as for a database that is down
// (README "Errors"), never a 500 or a request left hanging; and it answers normally once a connection is free.

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(async () => t?.close());

describe('every database connection busy', () => {
  it('a request waits at most the connection timeout, then gets 503 unavailable with Retry-After; then 200 again', async () => {
    const me = () => t.request({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${s.secret}` } });
    expect((await me()).statusCode).toBe(200);
    const pool = (await (t.orm.em.getConnection() as PostgreSqlConnection).getNativeClient()) as unknown as {
      options: { max: number };
      connect(): Promise<{ release(): void }>;
    };
    // Take every connection the pool may open (the test app's pool holds 5), as a flood of slow requests would.
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    try {
      const started = Date.now();
      const busy = await me();
      const waited = Date.now() - started;
      expect(busy.statusCode).toBe(503);
      expect(busy.json().error).toMatchObject({ code: 'unavailable', request_id: busy.headers['x-request-id'] });
      expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
      expect(waited).toBeGreaterThanOrEqual(4_500);
      expect(waited).toBeLessThan(15_000);
    } finally {
      for (const client of held) client.release();
    }
    expect((await me()).statusCode).toBe(200);
  }, 30_000);
});
