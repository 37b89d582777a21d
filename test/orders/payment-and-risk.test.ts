import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RISK_FLAGS } from '../../domain/risk.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { orderBody, ordersApi } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let shopA: ReturnType<typeof ordersApi>;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  shopA = ordersApi(t, (await createTestConnection(t.orm, s.store.id, 'platform_a')).key);
});
afterAll(() => t.close());

const post = async (client: ReturnType<typeof ordersApi>, body: Record<string, unknown>) => {
  const res = await client.post(orderBody(body));
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().order;
};
const cod = (extra: Record<string, unknown> = {}) => ({ is_cod: true, method: 'cod', method_title: 'Cash on delivery', ...extra });
const prepaid = (extra: Record<string, unknown> = {}) => ({ is_cod: false, method: 'stripe', method_title: 'Card', ...extra });

describe('payment status: explicit input is kept, onto the five order values', () => {
  it.each([
    ['unpaid', 'unpaid'],
    ['pending', 'pending'],
    ['paid', 'paid'],
    ['failed', 'failed'],
    ['refunded', 'refunded'],
    ['partially_refunded', 'paid'],
  ])('input %s is stored as %s whatever the order status', async (input, stored) => {
    const order = await post(api, { status: 'completed', payment: prepaid({ status: input, refunded_amount: 5 }) });
    expect(order.payment.status).toBe(stored);
  });
});

describe('payment status: inferred from the order status when missing (docs/orders.md table)', () => {
  it.each([
    ['pending', 'unpaid', 'pending'],
    ['processing', 'unpaid', 'paid'],
    ['shipped', 'unpaid', 'paid'],
    ['out-for-delivery', 'unpaid', 'paid'],
    ['completed', 'paid', 'paid'],
    ['cancelled', 'unpaid', 'unpaid'],
    ['wc-refunded', 'unpaid', 'refunded'],
    ['failed', 'unpaid', 'failed'],
  ])('platform_a %s: cash on delivery %s, prepaid %s', async (status, whenCod, whenPrepaid) => {
    expect((await post(shopA, { status, payment: cod() })).payment.status).toBe(whenCod);
    expect((await post(shopA, { status, payment: prepaid() })).payment.status).toBe(whenPrepaid);
  });

  it('reads refunded and failed slugs when a secret key names status_kind platform_a', async () => {
    expect((await post(api, { status: 'wc-refunded', status_kind: 'platform_a', payment: prepaid() })).payment.status).toBe('refunded');
    expect((await post(api, { status: 'failed', status_kind: 'platform_a', payment: prepaid() })).payment.status).toBe('failed');
  });

  it('a cash-on-delivery order becomes paid when it is delivered', async () => {
    const body = orderBody({ status: 'confirmed', payment: cod() });
    expect((await api.post(body)).json().order.payment.status).toBe('unpaid');
    expect((await api.post({ ...body, delivered: true })).json().order.payment.status).toBe('paid');
  });
});

describe('payment method: cod or manual, the real method kept apart', () => {
  it('shows cod for a cash-on-delivery order and keeps the platform’s method and title', async () => {
    const order = await post(shopA, { status: 'processing', payment: cod() });
    expect(order.payment).toEqual({ method: 'cod', status: 'unpaid', external_method: 'cod', external_method_title: 'Cash on delivery' });
  });

  it('shows manual for any other order', async () => {
    const order = await post(shopA, { status: 'processing', payment: prepaid({ method: 'stripe_cc', method_title: '<b>Visa</b>' }) });
    expect(order.payment).toEqual({ method: 'manual', status: 'paid', external_method: 'stripe_cc', external_method_title: 'Visa' });
  });
});

describe('risk: only cash-on-delivery orders are assessed', () => {
  it('a prepaid order has risk null even with a bad phone and no address', async () => {
    const order = await post(api, { payment: prepaid(), customer: { name: 'X', phone: '123', country: 'MA' } });
    expect(order.risk).toBeNull();
  });

  it('a clean cash-on-delivery order has risk null', async () => {
    const order = await post(api, {
      payment: cod(),
      customer: { name: 'Sara', phone: '0612345671', address_line1: 'Rue 2', city: 'Rabat', country: 'Morocco' },
    });
    expect(order.risk).toBeNull();
  });

  it('an invalid phone for the country gives phone_invalid, level high', async () => {
    const customer = { name: 'Ali', phone: '+33612345678', address_line1: 'Rue 1', city: 'Fes', country: 'MA' };
    const order = await post(api, { payment: cod(), customer });
    expect(order.risk).toEqual({ level: 'high', flags: [{ code: 'phone_invalid', label: RISK_FLAGS.phone_invalid.label }] });
    const missing = await post(api, { payment: cod(), customer: { ...customer, phone: '  ' } });
    expect(missing.risk.flags.map((f: { code: string }) => f.code)).toEqual(['phone_invalid']);
  });

  it('a missing address or city gives address_incomplete, level medium', async () => {
    const order = await post(api, { payment: cod(), customer: { name: 'Ali', phone: '0612345672', country: 'MA', city: 'Fes' } });
    expect(order.risk).toEqual({ level: 'medium', flags: [{ code: 'address_incomplete', label: RISK_FLAGS.address_incomplete.label }] });
  });

  it('the first order of a phone with a high total is flagged; the next one is not', async () => {
    const customer = { name: 'Big', phone: '0612345673', address_line1: 'Rue 3', city: 'Fes', country: 'MA' };
    const first = await post(api, { payment: cod(), customer, totals: { total: 450 } });
    expect(first.risk).toEqual({
      level: 'medium',
      flags: [{ code: 'first_order_high_total', label: RISK_FLAGS.first_order_high_total.label }],
    });
    const second = await post(api, { payment: cod(), customer: { ...customer, phone: '+212 612-345673' }, totals: { total: 450 } });
    expect(second.risk).toBeNull();
  });

  it('a phone with an earlier cancelled order gives previous_cancellations, level high', async () => {
    const customer = { name: 'C', phone: '0612345674', address_line1: 'Rue 4', city: 'Fes', country: 'MA' };
    await post(api, { payment: cod(), customer, status: 'cancelled' });
    const next = await post(api, { payment: cod(), customer });
    expect(next.risk).toEqual({
      level: 'high',
      flags: [{ code: 'previous_cancellations', label: RISK_FLAGS.previous_cancellations.label }],
    });
  });

  it('every flag code the API can give is listed in docs/orders.md', () => {
    const doc = readFileSync(new URL('../../docs/orders.md', import.meta.url), 'utf8');
    for (const [code, flag] of Object.entries(RISK_FLAGS)) expect(doc).toContain(`| \`${code}\` | ${flag.label} | ${flag.severity} |`);
  });
});
