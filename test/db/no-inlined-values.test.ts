// No user value is ever written into SQL text (issue 25): the app is driven through representative flows
// with one sentinel in every field a user fills in, while every SQL text this process sends to PostgreSQL
// is recorded (test/helpers/sql-text.ts); no recorded text may contain the sentinel. Values bound as
// parameters (db/bound.ts, db/prepared.ts) travel apart from the text and are not seen.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderCommands } from '../../scripts/admin/commands/orders.js';
import { checkCredentials, signUp } from '../../services/accounts/owners.js';
import { approveConnection } from '../../services/connections/codes.js';
import { createKey, createStore, findStoreWithKeys, revokeKey } from '../../services/stores.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { recordSqlText } from '../helpers/sql-text.js';
import { addKey, createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';

/** In every user field; lower case, since several fields are lower-cased on the way in (e-mail, slug, host). */
const SENTINEL = 'zq9sentinel';

let t: TestApp;
let s: TestStore;
/** A secret key of the store that may manage webhooks. */
let hooksKey: string;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  hooksKey = (await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['webhooks:write'] })).key;
});
afterAll(() => t.close());

type Unrecorded = <T>(work: () => Promise<T>) => Promise<T>;

/** Runs `work` while recording (but its set-up); fails naming each statement that carries the sentinel in its text. */
async function expectNoInlinedValue(work: (unrecorded: Unrecorded) => Promise<void>): Promise<void> {
  const recorder = recordSqlText();
  try {
    await work((setUp) => recorder.unrecorded(setUp));
  } finally {
    recorder.stop();
  }
  expect(recorder.texts.length, 'the flow sent no SQL at all: the recorder is not seeing it').toBeGreaterThan(0);
  const inlined = recorder.texts.filter((text) => text.toLowerCase().includes(SENTINEL)).map((text) => text.slice(0, 400));
  expect(inlined.join('\n--- next statement ---\n'), 'statements with a user value written into their SQL text').toBe('');
}

/** A flow: fails when any statement it sends carries the sentinel in its text. */
const flow = (name: string, work: (unrecorded: Unrecorded) => Promise<void>) => it(name, () => expectNoInlinedValue(work));

describe('the recorder', () => {
  it('sees a value MikroORM writes into the SQL text (so the flows below can fail)', async () => {
    const recorder = recordSqlText();
    try {
      await t.orm.em.fork().execute('select ?::text as v', [SENTINEL]);
    } finally {
      recorder.stop();
    }
    expect(recorder.texts.some((text) => text.includes(SENTINEL))).toBe(true);
  });
});

describe('no user value is written into SQL text', () => {
  const named = flow;

  named('a store is created with keys, listed, and a key revoked', async () => {
    const em = t.orm.em.fork();
    const store = await createStore(em, { name: `Shop ${SENTINEL}` });
    const { key } = await createKey(em, store.id, {
      kind: 'publishable',
      label: `label ${SENTINEL}`,
      origins: [`https://${SENTINEL}.example`],
    });
    await createKey(em, store.id, { kind: 'secret', label: SENTINEL });
    const found = (await findStoreWithKeys(em, store.id))!;
    expect(found.store.slug).toBe(`shop-${SENTINEL}`);
    expect(found.keys.map((k) => k.label)).toEqual([`label ${SENTINEL}`, SENTINEL]);
    expect((await revokeKey(em, key.id))!.revokedAt).toBeInstanceOf(Date);
  });

  named('a webhook endpoint is registered, listed and deleted', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(hooksKey),
      payload: { url: `https://hooks.public.example/${SENTINEL}?q=${SENTINEL}`, events: ['order.created'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const list = await t.request({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(hooksKey) });
    expect(list.json().data.map((e: { url: string }) => e.url)).toContain(created.json().url);
    const deleted = await t.request({ method: 'DELETE', url: `/api/v1/webhooks/${created.json().id}`, headers: bearer(hooksKey) });
    expect(deleted.statusCode, deleted.body).toBe(200);
  });

  named('a connect code is approved for a shop address', async () => {
    await approveConnection(t.orm.em.fork(), {
      storeId: s.store.id,
      platform: 'platform_a',
      siteUrl: `https://${SENTINEL}.example/shop`,
      shopName: `Shop ${SENTINEL}`,
      currency: 'EUR',
      ttlSeconds: 600,
    });
  });

  named('a code is exchanged, the plugin beats and disconnects', async (unrecorded) => {
    // The approval itself is the flow above; here it only sets the stage.
    const approved = await unrecorded(() =>
      approveConnection(t.orm.em.fork(), {
        storeId: s.store.id,
        platform: 'platform_b',
        siteUrl: `https://${SENTINEL}-b.example/`,
        shopName: SENTINEL,
        ttlSeconds: 600,
      }),
    );
    const exchanged = await t.request({
      method: 'POST',
      url: '/api/v1/connect/exchange',
      payload: { code: approved.code, site_url: `https://${SENTINEL}-b.example/shop` },
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const connectionKey: string = exchanged.json().api_key;
    const beat = await t.request({
      method: 'PUT',
      url: '/api/v1/connection',
      headers: bearer(connectionKey),
      payload: {
        plugin_version: `1.0-${SENTINEL}`,
        platform_version: SENTINEL,
        shop_name: `Renamed ${SENTINEL}`,
        currency: 'usd',
        site_url: `https://${SENTINEL}-b.example/other`,
      },
    });
    expect(beat.statusCode, beat.body).toBe(200);
    // A code that is no code at all, for a host of its own.
    const refused = await t.request({
      method: 'POST',
      url: '/api/v1/connect/exchange',
      payload: { code: SENTINEL, site_url: `https://${SENTINEL}.example/` },
    });
    expect(refused.statusCode).toBe(400);
    const gone = await t.request({ method: 'POST', url: '/api/v1/connect/disconnect', headers: bearer(connectionKey) });
    expect(gone.statusCode, gone.body).toBe(200);
  });

  named('an operator looks an order up by external id (admin CLI)', async () => {
    const show = orderCommands.find((c) => c.name === 'orders show')!;
    const em = t.orm.em.fork();
    await expect(
      show.run({ em, config: t.config, databaseUrl: '' }, { store: s.store.id, 'external-id': `ext-${SENTINEL}` }),
    ).rejects.toThrow(/no order/);
  });

  named('an order is upserted with its customer and items', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: {
        external_id: `ext-${SENTINEL}`,
        number: `N-${SENTINEL}`,
        totals: { total: 20 },
        customer: { name: `Ada ${SENTINEL}`, email: `${SENTINEL}@shopper.example`, phone: '+212600000000', city: SENTINEL },
        items: [{ name: `Tea ${SENTINEL}`, variant: SENTINEL, quantity: 1, unit_price: 20 }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  named('a connected shop sends its products', async (unrecorded) => {
    const conn = await unrecorded(() => createTestConnection(t.orm, s.store.id, 'platform_a'));
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/external-products/batch',
      headers: bearer(conn.key),
      payload: { products: [{ external_id: `p-${SENTINEL}`, name: `Product ${SENTINEL}`, price: 12.5, category: SENTINEL }] },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  });

  named('a shopper looks an order up by number and contact', async () => {
    const res = await t.request({
      method: 'GET',
      url: `/api/v1/tracking?${new URLSearchParams({ order: `N-${SENTINEL}`, contact: `${SENTINEL}@shopper.example` })}`,
      headers: bearer(s.secret),
    });
    expect(res.statusCode, res.body).toBeLessThan(500);
  });

  named('an owner signs up and signs in to the dashboard', async () => {
    const em = t.orm.em.fork();
    await signUp(em, `${SENTINEL}@owner.example`, `pass-${SENTINEL}-long-enough`);
    expect(await checkCredentials(em, `${SENTINEL}@owner.example`, `pass-${SENTINEL}-long-enough`)).not.toBeNull();
  });
});

// The flows above see what this process sends; the worker's activities run elsewhere. So the source is held to the
// one path too: no production file calls MikroORM's execute (which writes every value into the text) but db/bound.ts.
describe('the one query path', () => {
  it('no production file but db/bound.ts calls em.execute or a connection execute', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(join(root, dir))) {
        const path = join(dir, name);
        if (statSync(join(root, path)).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && path !== join('db', 'bound.ts')) {
          readFileSync(join(root, path), 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (/\.execute\s*(<|\()/.test(line) && !line.trimStart().startsWith('//') && !line.trimStart().startsWith('*'))
                offenders.push(`${path}:${i + 1}: ${line.trim()}`);
            });
        }
      }
    };
    for (const floor of ['api', 'web', 'services', 'activities', 'workflows', 'db', 'domain', 'config', 'contract', 'temporal', 'scripts'])
      walk(floor);
    expect(offenders).toEqual([]);
  });
});
