// Services signal a client's mistake one way: they throw ApiError (contract/errors.ts) with the spec's code
// and the field at fault, whoever calls them (the API, the pages, the CLI); see README, Architecture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../contract/errors.js';
import { signUp } from '../../services/accounts/owners.js';
import { approveConnection } from '../../services/connections/codes.js';
import { createManualConnection } from '../../services/dashboard/connections.js';
import { parseSettings } from '../../services/dashboard/settings.js';
import { orderSenderFor } from '../../services/orders/sender.js';
import { upsertOrder, upsertOrders } from '../../services/orders/upsert.js';
import { createKey, normalizeOrigin } from '../../services/stores.js';
import { trackByNumber, TrackingRefused } from '../../services/tracking/lookup.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { newEmail, PASSWORD } from '../dashboard/client.js';
import { orderBody } from '../orders/fixtures.js';
import type { Principal } from '../../contract/principal.js';
import { OrderInput } from '../../contract/schemas/orders.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
});
afterAll(() => t.close());

const em = () => t.orm.em.fork();
/** The ApiError a call throws (it must throw one). */
async function mistakeOf(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError, but the call succeeded');
}

describe('accounts and settings', () => {
  it('sign-up: a bad email or a weak password is 400 naming it, a taken address 409 email', async () => {
    expect(await mistakeOf(() => signUp(em(), 'not-an-email', PASSWORD))).toMatchObject({ code: 'invalid_request', param: 'email' });
    expect(await mistakeOf(() => signUp(em(), newEmail(), 'short'))).toMatchObject({ code: 'invalid_request', param: 'password' });
    const email = newEmail();
    await signUp(em(), email, PASSWORD);
    expect(await mistakeOf(() => signUp(em(), email.toUpperCase(), PASSWORD))).toMatchObject({
      code: 'conflict',
      status: 409,
      param: 'email',
    });
  });

  it('store settings: the first bad field is 400 naming it', async () => {
    const form = (fields: Record<string, string>) =>
      new URLSearchParams({ name: 'Shop', currency: 'EUR', mode: 'full', plan: 'free', standard_delivery_fee: '4.99', ...fields });
    expect(parseSettings(form({}), 'free')).toMatchObject({ name: 'Shop', currency: 'EUR', standardDeliveryFee: '4.9900' });
    for (const [field, value] of [
      ['name', ''],
      ['currency', 'EURO'],
      ['mode', 'loud'],
      ['plan', 'gold'],
      ['plan', 'paid'],
      ['standard_delivery_fee', 'lots'],
    ]) {
      expect(await mistakeOf(() => parseSettings(form({ [field!]: value! }), 'free')), field).toMatchObject({
        code: 'invalid_request',
        param: field,
      });
    }
  });
});

describe('keys and connections', () => {
  it('a scope the kind may not hold is 400 scopes; a website that is no origin 400 origins', async () => {
    expect(await mistakeOf(() => createKey(em(), s.store.id, { kind: 'publishable', scopes: ['orders:read'] }))).toMatchObject({
      code: 'invalid_request',
      param: 'scopes',
    });
    expect(
      await mistakeOf(() => createKey(em(), s.store.id, { kind: 'publishable', origins: ['https://shop.example/path'] })),
    ).toMatchObject({ code: 'invalid_request', param: 'origins' });
    expect(await mistakeOf(() => normalizeOrigin('not a url'))).toMatchObject({ code: 'invalid_request', param: 'origins' });
  });

  it('a store at its plan’s limit of connected shops is 409 conflict, by the connect page’s way and the dashboard’s', async () => {
    const free = await createTestStore(t.orm);
    await createManualConnection(em(), {
      storeId: free.store.id,
      platform: 'platform_a',
      siteUrl: 'https://one.example',
      shopName: null,
      secretsKey: t.config.secretsKey,
    });
    const approve = () =>
      approveConnection(em(), { storeId: free.store.id, platform: 'platform_b', siteUrl: 'https://two.example', ttlSeconds: 60 });
    expect(await mistakeOf(approve)).toMatchObject({
      code: 'conflict',
      status: 409,
      message: expect.stringContaining('free plan allows (1)'),
    });
    const manual = () =>
      createManualConnection(em(), {
        storeId: free.store.id,
        platform: 'platform_b',
        siteUrl: 'https://two.example',
        shopName: null,
        secretsKey: t.config.secretsKey,
      });
    expect(await mistakeOf(manual)).toMatchObject({ code: 'conflict', status: 409 });
    expect(
      await mistakeOf(() =>
        approveConnection(em(), { storeId: s.store.id, platform: 'platform_a', siteUrl: 'ftp://shop.example', ttlSeconds: 60 }),
      ),
    ).toMatchObject({ code: 'invalid_request', param: 'site_url' });
  });
});

describe('orders and tracking', () => {
  const principal = (): Principal => ({
    keyId: crypto.randomUUID(),
    kind: 'secret',
    connectionId: null,
    storeId: s.store.id,
    plan: 'free',
    scopes: [],
    origins: [],
    storeSlug: s.store.slug,
    storeName: s.store.name,
    storeCurrency: 'USD',
    storeMode: 'full',
    storePublished: true,
    storeDeliveryFee: '0',
    shopHost: null,
    platform: null,
  });

  it('one order with a status it cannot read is 400 status; in a batch the same mistake is that order’s result', async () => {
    const sender = orderSenderFor(principal(), t.config.publicUrl);
    const bad = orderBody({ status: 'teleported' });
    const err = await mistakeOf(() => upsertOrder(em(), sender, OrderInput.parse(bad)));
    expect(err).toMatchObject({ code: 'invalid_request', param: 'status', message: expect.stringMatching(/^status: /) });
    const [result] = await upsertOrders(em(), sender, [bad]);
    expect(result).toEqual({ ok: false, externalId: bad.external_id, message: err.message, param: 'status' });
  });

  it('a lookup that does not show the order is the API’s error, with the reason for the pages', async () => {
    const err = await mistakeOf(() => trackByNumber(em(), { maxWrong: 5, lockoutSeconds: 60 }, s.store.id, 'NO-SUCH-NUMBER', undefined));
    expect(err).toBeInstanceOf(TrackingRefused);
    expect(err).toMatchObject({ code: 'not_found', status: 404, reason: 'not_found', storeName: null });
  });
});
