// No answer of tracking, API or page, ever carries what identifies the shopper.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createOrder, nextNumber, postForm, SHOPPER, track, trackingStore, type TrackingStore } from './fixtures.js';

let t: TestApp;
let s: TrackingStore;
beforeAll(async () => {
  t = await createTestApp();
  // A name without digits: nothing else in a body may look like the last 4 digits.
  s = await trackingStore(t, 'Tea Corner');
});
afterAll(() => t.close());

const PII = [
  SHOPPER.name,
  ...SHOPPER.name.split(' '),
  SHOPPER.email,
  SHOPPER.email.split('@')[0]!,
  SHOPPER.phone,
  SHOPPER.phoneDigits,
  SHOPPER.address_line1,
  'Tafilalet',
  SHOPPER.address_line2,
  SHOPPER.city,
  SHOPPER.state,
  SHOPPER.postcode,
];

/** Searches the whole body, case-insensitively, for every detail of the shopper and the last 4 digits too. */
function expectNoPii(res: LightMyRequestResponse, orderId: string) {
  const body = res.body.toLowerCase();
  for (const value of PII) expect(body, `body contains ${value}`).not.toContain(value.toLowerCase());
  // The order's id (in a page link) and request ids are random hex: take them out so their digits cannot fake a hit.
  const rest = body.replaceAll(orderId, '').replace(/req_[0-9a-f]+/g, '');
  expect(rest, 'body contains the last 4 digits').not.toContain(SHOPPER.last4);
}

describe('tracking answers never contain the shopper’s name, phone, email or address', () => {
  it('the API result with the right contact, by phone digits and by email', async () => {
    const number = nextNumber('P');
    const id = await createOrder(t, s.connection, number);
    for (const contact of [SHOPPER.last4, SHOPPER.email]) {
      const res = await track(t, s.secret, { order: number, contact });
      expect(res.statusCode).toBe(200);
      expectNoPii(res, id);
    }
  });

  it('the API errors: missing, wrong, and the lockout', async () => {
    const number = nextNumber('P');
    const id = await createOrder(t, s.connection, number);
    expectNoPii(await track(t, s.secret, { order: number }), id);
    for (let i = 0; i < 5; i++) expectNoPii(await track(t, s.secret, { order: number, contact: '8394' }), id);
    const locked = await track(t, s.secret, { order: number, contact: SHOPPER.last4 });
    expect(locked.statusCode).toBe(429);
    expectNoPii(locked, id);
  });

  it('the order’s page: the contact form, the tracking view, a wrong answer', async () => {
    const number = nextNumber('P');
    const id = await createOrder(t, s.connection, number);
    const form = await t.request({ method: 'GET', url: `/track/${id}` });
    expect(form.statusCode).toBe(200);
    expectNoPii(form, id);
    const view = await postForm(t, `/track/${id}`, { contact: SHOPPER.last4 });
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('Mint tea');
    expectNoPii(view, id);
    expectNoPii(await postForm(t, `/track/${id}`, { contact: '8394' }), id);
  });

  it('the store’s page: the form and the result', async () => {
    const number = nextNumber('P');
    const id = await createOrder(t, s.connection, number);
    expectNoPii(await t.request({ method: 'GET', url: `/s/${s.store.slug}/track` }), id);
    const view = await postForm(t, `/s/${s.store.slug}/track`, { order: number, contact: SHOPPER.email });
    expect(view.statusCode).toBe(200);
    expectNoPii(view, id);
  });
});
