import { seedProducts } from '../lib/catalog-fixtures.js';
import { KEYS_PER_STORE } from '../lib/environment.js';
import { createBenchStore } from '../lib/fixtures.js';
import { runPair } from '../lib/pair-scenario.js';
import type { Scenario } from '../lib/scenario.js';

const PRODUCTS = 10_000;
const CONNECTIONS = 20;

/** GET /products?limit=100 p99 at a fixed rate (half the baseline's maximum) over 10,000 products; lower is better. */
export const productsListP99Scenario: Scenario = {
  id: 'products-list-p99',
  async run(env) {
    const store = await createBenchStore(env.pool, 'Bench Catalogue Store', KEYS_PER_STORE);
    const t0 = Date.now();
    await seedProducts(env.pool, store.id, PRODUCTS);
    env.log(`products-list-p99: seeded ${PRODUCTS.toLocaleString('en')} products in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const baseline = await env.startBaseline('pg-catalog', { STORE_ID: store.id });
    // The baseline checks keys and counts requests as ours does, against keys of its own (not to push ours toward their limit).
    const twin = await createBenchStore(env.pool, 'Bench Catalogue Store twin', KEYS_PER_STORE);
    try {
      const path = '/api/v1/products?limit=100';
      const [ours, base] = await Promise.all([
        fetch(`${env.api.url}${path}`, { headers: { authorization: `Bearer ${store.keys[0]}` } }).then(async (r) => [
          r.status,
          (await r.text()).length,
        ]),
        fetch(`${baseline.url}${path}`, { headers: { authorization: `Bearer ${twin.keys[0]}` } }).then(async (r) => [
          r.status,
          (await r.text()).length,
        ]),
      ]);
      if (ours[0] !== 200) throw new Error(`GET /products: HTTP ${ours[0]}`);
      return await runPair({
        id: 'products-list-p99',
        env,
        metric: 'p99_ms',
        baselineUrl: baseline.url,
        baselineCpu: env.baselineCpu(baseline.process),
        path,
        connections: CONNECTIONS,
        keys: store.keys,
        baselineKeys: twin.keys,
        what:
          `GET ${path} (first page) of a published store with ${PRODUCTS.toLocaleString('en')} products; response ${ours[1]} bytes ours vs ${base[1]} bytes baseline; ` +
          `baseline: Fastify + pg, the same key check and rate-limit count (keys of a twin store), then the same keyset SELECT … ORDER BY created_at DESC, id DESC LIMIT 101 on the same table, rows as JSON`,
        aim: '≤ 1.5 (issue 9: GET /products ≥ 0.6 of the baseline)',
      });
    } finally {
      await baseline.process.stop();
    }
  },
};
