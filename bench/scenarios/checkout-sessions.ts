import { seedProducts } from '../lib/catalog-fixtures.js';
import { KEYS_PER_STORE } from '../lib/environment.js';
import { createBenchStore } from '../lib/fixtures.js';
import { seededRandom } from '../lib/order-bodies.js';
import { runPair } from '../lib/pair-scenario.js';
import { SATURATION_CONNECTIONS, type Scenario } from '../lib/scenario.js';

const PRODUCTS = 200;

/** POST /checkout/sessions (3 lines) per second vs Fastify + pg checking the key, pricing the lines and writing what ours writes. */
export const checkoutSessionsScenario: Scenario = {
  id: 'checkout-sessions',
  async run(env) {
    const store = await createBenchStore(env.pool, 'Bench Checkout Store', KEYS_PER_STORE);
    const ids = await seedProducts(env.pool, store.id, PRODUCTS);
    const baseline = await env.startBaseline('pg-catalog', {
      STORE_ID: store.id,
      CHECKOUT_TTL_SECONDS: process.env.BENCH_CHECKOUT_TTL ?? '5',
    });
    // The baseline checks keys and counts requests as ours does, against keys of its own (not to push ours toward their limit).
    const twin = await createBenchStore(env.pool, 'Bench Checkout Store twin', KEYS_PER_STORE);
    try {
      const random = seededRandom(9);
      const pick = () => ids[Math.floor(random() * ids.length)]!;
      const body = () => {
        const lines = new Set<string>();
        while (lines.size < 3) lines.add(pick());
        return JSON.stringify({ items: [...lines].map((product_id, i) => ({ product_id, quantity: 1 + i })) });
      };
      return await runPair({
        id: 'checkout-sessions',
        env,
        metric: 'req_per_s',
        baselineUrl: baseline.url,
        baselineCpu: env.baselineCpu(baseline.process),
        path: '/api/v1/checkout/sessions',
        method: 'POST',
        connections: SATURATION_CONNECTIONS,
        keys: store.keys,
        baselineKeys: twin.keys,
        request: () => ({ body: body() }),
        what:
          `POST /checkout/sessions with 3 lines of ${PRODUCTS} products (no stock limit, no variants); ours prices the lines, writes the session and ` +
          `its expiry bucket (the first session of each store and bucket also writes an outbox row → one checkoutExpiryWorkflow per bucket in Temporal; the bench API runs with CHECKOUT_TTL_SECONDS=${process.env.BENCH_CHECKOUT_TTL ?? 5}, so buckets of 1 s, ` +
          `their work counted against ours until drained); baseline: Fastify + pg, every statement prepared, the same key check and rate-limit count (keys of a twin store), ` +
          `one SELECT of the 3 products, then one statement writing what ours writes: the session, its expiry bucket, and for the bucket's first session an outbox row + NOTIFY; ` +
          `ours does more: validation (zod), the return URL and published checks, pricing with variants and stock (none here), its SELECT of the products sent as text and planned each time (services/checkout/cart.ts), ` +
          `and the bucket workflows run by the worker and Temporal`,
        aim: '≥ 0.6 (issue 9)',
      });
    } finally {
      await baseline.process.stop();
    }
  },
};
