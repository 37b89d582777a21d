import type { BenchEnv } from './environment.js';
import { keyRotation } from './fixtures.js';
import { runLoad, type LoadResult, type NextRequest } from './load.js';
import { orderBodies, seededRandom } from './order-bodies.js';

/** Connections per kind of request: writes as a store's plugins send them, reads as dashboards and apps make them. */
export const MIX = { upsert: 8, list: 4, byId: 4, me: 4 } as const;
export type MixKind = keyof typeof MIX;

/**
 * A realistic mix against one API for `durationSec`, all kinds at once, each saturating its own connections:
 * POST /orders (3 items, 80 % new / 20 % repeated ids), GET /orders?limit=50, GET /orders/{id} of the
 * store's orders, GET /me; every request with the next key of the bench store.
 */
export async function mixedLoad(env: BenchEnv, apiUrl: string, tag: string, durationSec: number): Promise<Record<MixKind, LoadResult>> {
  const { rows } = await env.pool.query<{ id: string }>('select id from orders where store_id = $1 order by random() limit 1000', [
    env.store.id,
  ]);
  const ids = rows.map((r) => r.id);
  const nextKey = keyRotation(env.store.keys);
  const random = seededRandom(ids.length);
  const bodies = orderBodies({ items: 3, idPrefix: `mixed-${tag}`, repeatShare: 0.2, seed: 7 });
  const auth = () => ({ authorization: `Bearer ${nextKey()}` });
  const kind = (connections: number, method: 'GET' | 'POST', next: () => NextRequest) =>
    runLoad({ url: `${apiUrl}/api/v1/orders`, connections, durationSec, method, headers: { 'content-type': 'application/json' }, next });
  const [upsert, list, byId, me] = await Promise.all([
    kind(MIX.upsert, 'POST', () => ({ body: bodies(), headers: auth() })),
    kind(MIX.list, 'GET', () => ({ path: '/api/v1/orders?limit=50', headers: auth() })),
    kind(MIX.byId, 'GET', () => ({ path: `/api/v1/orders/${ids[Math.floor(random() * ids.length)]}`, headers: auth() })),
    kind(MIX.me, 'GET', () => ({ path: '/api/v1/me', headers: auth() })),
  ]);
  return { upsert: upsert!, list: list!, byId: byId!, me: me! };
}
