// GET /tracking: the Tracking result, unknown numbers, the contact rules, shared numbers, keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { addKey, createTestConnection, createTestStore } from '../helpers/store.js';
import { createOrder, lockoutRow, nextNumber, SHOPPER, sql, track, trackingStore, type TrackingStore } from './fixtures.js';

let t: TestApp;
let s: TrackingStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await trackingStore(t);
});
afterAll(() => t.close());

const errorOf = (res: { statusCode: number; json(): { error?: { code: string; param?: string } } }) => ({
  status: res.statusCode,
  code: res.json().error?.code,
  param: res.json().error?.param,
});

describe('the Tracking result is exactly the spec’s', () => {
  it('has the spec’s fields, items as {name, variant, quantity, image_url} and history as {status, comment, created_at}', async () => {
    const number = nextNumber();
    const id = await createOrder(t, s.secret, number, { payment: { is_cod: true } });
    await t.request({
      method: 'PATCH',
      url: `/api/v1/orders/${id}`,
      headers: bearer(s.secret),
      payload: {
        status: 'shipped',
        tracking: { number: 'AWB-77', courier: 'Amana', url: 'https://track.example/AWB-77' },
        comment: 'Left the warehouse',
      },
    });
    const res = await track(t, s.secret, { order: number });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['order', 'store']);
    expect(body.store).toEqual({ name: s.store.name });
    expect(Object.keys(body.order).sort()).toEqual(
      [
        'order_number',
        'status',
        'items',
        'total_amount',
        'shipping_fee',
        'cod_fee',
        'currency',
        'tracking_link',
        'status_comment',
        'shipping_awb',
        'shipping_courier',
        'shipping_status_text',
        'status_history',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(body.order).toMatchObject({
      order_number: number,
      status: 'shipped',
      total_amount: 59.97,
      shipping_fee: 7,
      cod_fee: 0,
      currency: 'MAD',
      tracking_link: 'https://track.example/AWB-77',
      status_comment: 'Left the warehouse',
      shipping_awb: 'AWB-77',
      shipping_courier: 'Amana',
      shipping_status_text: 'Shipped',
    });
    expect(body.order.items).toEqual([{ name: 'Mint tea', variant: 'Large tin', quantity: 3, image_url: 'https://img.example/tea.png' }]);
    expect(body.order.status_history.map((h: { status: string }) => h.status)).toEqual(['pending', 'shipped']);
    for (const h of body.order.status_history) {
      expect(Object.keys(h).sort()).toEqual(['comment', 'created_at', 'status']);
      expect(new Date(h.created_at).toISOString()).toBe(h.created_at);
    }
    expect(body.order.status_history[1].comment).toBe('Left the warehouse');
    expect(res.body).not.toMatch(/actor|key:|connection:/);
  });

  it('a prepaid order without a cash-on-delivery fee has cod_fee null', async () => {
    const number = nextNumber();
    await createOrder(t, s.secret, number);
    expect((await track(t, s.secret, { order: number })).json().order.cod_fee).toBeNull();
  });

  it('finds the order with or without a leading #', async () => {
    const number = nextNumber();
    await createOrder(t, s.secret, `#${number}`);
    expect((await track(t, s.secret, { order: number })).json().order.order_number).toBe(`#${number}`);
    expect((await track(t, s.secret, { order: ` #${number} ` })).statusCode).toBe(200);
  });

  it('is documented in the OpenAPI document with its shapes', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/tracking'].get;
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['contact', 'order']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '404', '422', '429']));
    expect(doc.components.schemas.TrackingItem.properties).toHaveProperty('image_url');
    expect(doc.components.schemas.TrackingStatusChange.properties).not.toHaveProperty('actor');
  });
});

describe('an unknown order number is 404 not_found', () => {
  it('answers 404 for a number the store does not have', async () => {
    expect(errorOf(await track(t, s.secret, { order: 'NO-SUCH-1' }))).toMatchObject({ status: 404, code: 'not_found' });
  });
  it('answers 404 for another store’s order and for an archived order', async () => {
    const other = await trackingStore(t);
    const number = nextNumber();
    const id = await createOrder(t, other.secret, number);
    expect((await track(t, s.secret, { order: number })).statusCode).toBe(404);
    await t.request({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: bearer(other.secret) });
    expect((await track(t, other.secret, { order: number })).statusCode).toBe(404);
  });
  it('a missing order parameter or an unknown parameter is 400', async () => {
    expect(errorOf(await track(t, s.secret, {}))).toMatchObject({ status: 400, code: 'invalid_request', param: 'order' });
    expect(errorOf(await track(t, s.secret, { order: '1', foo: 'x' }))).toMatchObject({ status: 400, param: 'foo' });
  });
});

describe('an order from an outside platform needs the contact', () => {
  it('missing contact is 422 with param contact, a blank one too', async () => {
    const number = nextNumber();
    await createOrder(t, s.connection, number);
    expect(errorOf(await track(t, s.secret, { order: number }))).toEqual({ status: 422, code: 'unprocessable', param: 'contact' });
    expect(errorOf(await track(t, s.secret, { order: number, contact: '  ' }))).toMatchObject({ status: 422, param: 'contact' });
    expect(await lockoutRow(t, s.store.id, number)).toBeUndefined();
  });
  it('a wrong contact is 422 and counts as a wrong try', async () => {
    const number = nextNumber();
    await createOrder(t, s.connection, number);
    expect(errorOf(await track(t, s.secret, { order: number, contact: '1111' }))).toMatchObject({ status: 422, code: 'unprocessable' });
    expect((await lockoutRow(t, s.store.id, number))?.wrong_count).toBe(1);
  });
  it('the last 4 digits of the phone match, digits only', async () => {
    const number = nextNumber();
    await createOrder(t, s.connection, number, { customer: { name: 'X', phone: '+212 6-12-34-56-78' } });
    for (const contact of ['5678', '56-78', ' 5678 '])
      expect((await track(t, s.secret, { order: number, contact })).statusCode, contact).toBe(200);
    expect((await track(t, s.secret, { order: number, contact: '212612345678' })).statusCode).toBe(422);
  });
  it('the email matches case-insensitively and trimmed', async () => {
    const number = nextNumber();
    await createOrder(t, s.connection, number);
    expect((await track(t, s.secret, { order: number, contact: `  ${SHOPPER.email.toUpperCase()} ` })).statusCode).toBe(200);
    expect((await track(t, s.secret, { order: number, contact: 'someone@mail.example' })).statusCode).toBe(422);
  });
});

describe('native and api orders are checked whenever a contact is given', () => {
  it('an api order is shown without a contact, refused with a wrong one, shown with the right one', async () => {
    const number = nextNumber();
    await createOrder(t, s.secret, number);
    expect((await track(t, s.secret, { order: number })).statusCode).toBe(200);
    expect(errorOf(await track(t, s.secret, { order: number, contact: '0000' }))).toMatchObject({ status: 422, code: 'unprocessable' });
    expect((await track(t, s.secret, { order: number, contact: SHOPPER.last4 })).statusCode).toBe(200);
  });
  it('a native order follows the same rules', async () => {
    const number = nextNumber();
    const id = await createOrder(t, s.secret, number);
    await sql(t, `update orders set source = 'native' where id = ?`, [id]);
    expect((await track(t, s.secret, { order: number })).statusCode).toBe(200);
    expect((await track(t, s.secret, { order: number, contact: '0000' })).statusCode).toBe(422);
    expect((await track(t, s.secret, { order: number, contact: SHOPPER.email })).statusCode).toBe(200);
  });
});

describe('a number shared by several orders of one store', () => {
  it('the contact picks the order it matches; without one the answer is 422 contact, never a guess', async () => {
    const number = nextNumber();
    const second = (await createTestConnection(t.orm, s.store.id, 'platform_a', 'https://shop-b.example')).key;
    await createOrder(t, s.connection, number, {
      customer: { name: 'A', phone: '0600001111' },
      items: [{ name: 'From shop A', quantity: 1, unit_price: 1 }],
    });
    await createOrder(t, second, number, {
      customer: { name: 'B', phone: '0600002222' },
      items: [{ name: 'From shop B', quantity: 1, unit_price: 1 }],
    });
    await createOrder(t, s.secret, number, {
      customer: { name: 'C', email: 'c@mail.example' },
      items: [{ name: 'From the API', quantity: 1, unit_price: 1 }],
    });
    expect((await track(t, s.secret, { order: number, contact: '1111' })).json().order.items[0].name).toBe('From shop A');
    expect((await track(t, s.secret, { order: number, contact: '2222' })).json().order.items[0].name).toBe('From shop B');
    expect((await track(t, s.secret, { order: number, contact: 'C@mail.example' })).json().order.items[0].name).toBe('From the API');
    expect(errorOf(await track(t, s.secret, { order: number }))).toMatchObject({ status: 422, param: 'contact' });
    expect((await track(t, s.secret, { order: number, contact: '3333' })).statusCode).toBe(422);
    expect((await lockoutRow(t, s.store.id, number))?.wrong_count).toBe(1);
  });
});

describe('keys', () => {
  it('a publishable key works from its allowed website, with CORS headers', async () => {
    const number = nextNumber();
    await createOrder(t, s.connection, number);
    const res = await track(
      t,
      s.publishable,
      { order: number, contact: SHOPPER.last4 },
      { headers: { origin: s.origin, 'sec-fetch-mode': 'cors' } },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(s.origin);
  });
  it('a publishable key from another website is 403', async () => {
    const res = await track(t, s.publishable, { order: '1' }, { headers: { origin: 'https://evil.example', 'sec-fetch-mode': 'cors' } });
    expect(res.statusCode).toBe(403);
  });
  it('a key without tracking:read is 403, and another store’s key never sees the order', async () => {
    const narrow = await addKey(t.orm, s.store.id, { kind: 'secret', scopes: ['orders:read'] });
    expect((await track(t, narrow.key, { order: '1' })).statusCode).toBe(403);
    const stranger = await createTestStore(t.orm);
    const number = nextNumber();
    await createOrder(t, s.secret, number);
    expect((await track(t, stranger.secret, { order: number })).statusCode).toBe(404);
  });
});
