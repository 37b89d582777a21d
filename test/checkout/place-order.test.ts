import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCheckoutToken } from '../../domain/checkout-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addProduct, api, pathOf, postCart, SHOPPER, sql } from '../catalog/fixtures.js';

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid', currency: 'MAD', standardDeliveryFee: '30' });
});
afterAll(() => t.close());

async function cartFor(items: unknown[], store = s, extra: Record<string, unknown> = {}): Promise<{ url: string; token: string }> {
  const res = await api(t, store.secret).checkout(items, extra);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
const stockOf = async (id: string) =>
  (
    await sql<{ stock: number | null; variants: { stock: number | null }[] }>(t, 'select stock, variants from products where id = ?', [id])
  )[0]!;
const ordersOf = (storeId: string) =>
  sql<{ id: string; order_number: string }>(t, 'select id, order_number from orders where store_id = ? order by created_at', [storeId]);

describe('placing the cart creates a native cash-on-delivery order', () => {
  it('303 to the confirmation; the order has source native, a number, cod, pending, product ids and exact totals', async () => {
    const tea = await addProduct(t, s.store.id, { name: 'Tea', price: '0.10', delivery_fee: '12.5', stock: 10, sku: 'TEA' });
    const pot = await addProduct(t, s.store.id, {
      name: 'Pot',
      price: 20,
      variants: [{ options: { Colour: 'Blue' }, price: '21.35', stock: 3, sku: 'POT-B' }],
    });
    const cart = await cartFor(
      [
        { product_id: tea.id, quantity: 3 },
        { product_id: pot.id, quantity: 2, variant: { Colour: 'Blue' } },
      ],
      s,
      { return_url: 'https://shop.example/thanks' },
    );
    const res = await postCart(t, cart.url, { ...SHOPPER, note: 'Ring twice\nplease', expected_total: '73' });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`${cart.url}/confirmation`);

    const [session] = await sql<{ status: string; order_id: string }>(
      t,
      'select status, order_id from checkout_sessions where token_hash = ?',
      [hashCheckoutToken(cart.token)],
    );
    expect(session!.status).toBe('used');
    const order = (await api(t, s.secret).get(`/orders/${session!.order_id}`)).json().order;
    expect(order).toMatchObject({
      source: 'native',
      external_id: null,
      order_number: expect.stringMatching(/^N-\d+$/),
      status: 'pending',
      payment: { method: 'cod', status: 'unpaid' },
      totals: { total: 73, shipping: 30, discount: 0, cod_fee: 0 },
      currency: 'MAD',
      customer: {
        name: 'Amina Test',
        phone: '+212 612 345 678',
        address: '12 Rue des Fleurs',
        city: 'Casablanca',
        country: 'Morocco',
        email: null,
      },
      note: 'Ring twice\nplease',
      archived: false,
    });
    expect(order.items).toEqual([
      {
        name: 'Tea',
        variant: null,
        quantity: 3,
        unit_price: 0.1,
        sku: 'TEA',
        product_id: tea.id,
        external_product_id: null,
        image_url: null,
      },
      {
        name: 'Pot',
        variant: 'Colour: Blue',
        quantity: 2,
        unit_price: 21.35,
        sku: 'POT-B',
        product_id: pot.id,
        external_product_id: null,
        image_url: null,
      },
    ]);
    const [row] = await sql<{ origin: string; total: string }>(t, 'select origin, total from orders where id = ?', [order.id]);
    expect(row).toEqual({ origin: 'native', total: '73.0000' });
    expect((await stockOf(tea.id)).stock).toBe(7);
    expect((await stockOf(pot.id)).variants[0]!.stock).toBe(1);

    const confirmation = await t.request({ method: 'GET', url: pathOf(res.headers.location as string) });
    expect(confirmation.statusCode).toBe(200);
    expect(confirmation.body).toContain(`<strong id="order-number">${order.order_number}</strong>`);
    expect(confirmation.body).toContain(`href="${order.tracking.page_url}"`);
    expect(confirmation.body).toContain('href="https://shop.example/thanks"');
    expect(confirmation.body).toContain('73.00 MAD');
  });

  it('writes the status history and the order.created event (not handed to Temporal: no webhook subscribes here)', async () => {
    const p = await addProduct(t, s.store.id, { price: 9 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    await postCart(t, cart.url, SHOPPER);
    const [session] = await sql<{ order_id: string }>(t, 'select order_id from checkout_sessions where token_hash = ?', [
      hashCheckoutToken(cart.token),
    ]);
    const id = session!.order_id;
    expect(await sql(t, 'select status, actor from order_status_history where order_id = ?', [id])).toEqual([
      { status: 'pending', actor: 'checkout' },
    ]);
    expect(await sql(t, 'select type, backfill, actor from order_events where order_id = ?', [id])).toEqual([
      { type: 'order.created', backfill: false, actor: 'checkout' },
    ]);
    expect(await sql(t, 'select workflow_type from outbox where workflow_id = ?', [`webhook-lane/${s.store.id}`])).toEqual([]);
  });

  it('order numbers follow a per-store counter', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id);
    for (let i = 0; i < 3; i++) await postCart(t, (await cartFor([{ product_id: p.id, quantity: 1 }], own)).url, SHOPPER);
    expect((await ordersOf(own.store.id)).map((o) => o.order_number)).toEqual(['N-1001', 'N-1002', 'N-1003']);
    const another = await createTestStore(t.orm);
    const q = await addProduct(t, another.store.id);
    await postCart(t, (await cartFor([{ product_id: q.id, quantity: 1 }], another)).url, SHOPPER);
    expect((await ordersOf(another.store.id)).map((o) => o.order_number)).toEqual(['N-1001']);
  });

  it('a COD order with a bad phone for its country carries the risk flags', async () => {
    const p = await addProduct(t, s.store.id, { price: 9 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }]);
    await postCart(t, cart.url, { ...SHOPPER, phone: '123456', country: 'MA' });
    const [session] = await sql<{ order_id: string }>(t, 'select order_id from checkout_sessions where token_hash = ?', [
      hashCheckoutToken(cart.token),
    ]);
    const order = (await api(t, s.secret).get(`/orders/${session!.order_id}`)).json().order;
    expect(order.risk.flags.map((f: { code: string }) => f.code)).toContain('phone_invalid');
  });
});

describe('a double submit gives one order', () => {
  it('a second POST of the same cart leads to the first order’s confirmation, not a second order', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id, { stock: 5 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }], own);
    const first = await postCart(t, cart.url, SHOPPER);
    const second = await postCart(t, cart.url, { ...SHOPPER, name: 'Someone else' });
    expect([first.statusCode, second.statusCode]).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    expect(await ordersOf(own.store.id)).toHaveLength(1);
    expect((await stockOf(p.id)).stock).toBe(4);
  });

  it('two POSTs of the same cart at once give one order and one stock decrement', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id, { stock: 5 });
    const cart = await cartFor([{ product_id: p.id, quantity: 2 }], own);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postCart(t, cart.url, SHOPPER)));
    expect(answers.map((a) => a.statusCode)).toEqual([303, 303, 303, 303, 303]);
    expect(await ordersOf(own.store.id)).toHaveLength(1);
    expect((await stockOf(p.id)).stock).toBe(3);
  });
});

describe('stock is never oversold when shoppers race for the last item', () => {
  it('two carts for the last item at once: exactly one order, the other sees sold out', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id, { name: 'Last one', stock: 1 });
    const [a, b] = [await cartFor([{ product_id: p.id, quantity: 1 }], own), await cartFor([{ product_id: p.id, quantity: 1 }], own)];
    const answers = await Promise.all([postCart(t, a.url, SHOPPER), postCart(t, b.url, SHOPPER)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([303, 409]);
    expect(answers.find((r) => r.statusCode === 409)!.body).toContain('sold out');
    expect(await ordersOf(own.store.id)).toHaveLength(1);
    expect((await stockOf(p.id)).stock).toBe(0);
  });

  it('ten carts racing for three of a variant: three orders, the variant ends at 0', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id, {
      variants: [
        { options: { Size: 'S' }, stock: 3 },
        { options: { Size: 'M' }, stock: 9 },
      ],
    });
    const carts = [];
    for (let i = 0; i < 10; i++) carts.push(await cartFor([{ product_id: p.id, quantity: 1, variant: { Size: 'S' } }], own));
    const answers = await Promise.all(carts.map((c) => postCart(t, c.url, SHOPPER)));
    expect(answers.filter((r) => r.statusCode === 303)).toHaveLength(3);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(7);
    expect(await ordersOf(own.store.id)).toHaveLength(3);
    expect((await stockOf(p.id)).variants.map((v) => v.stock)).toEqual([0, 9]);
  });

  it('a sold-out cart stays open and changes nothing', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id, { stock: 2 });
    const cart = await cartFor([{ product_id: p.id, quantity: 2 }], own);
    await sql(t, 'update products set stock = 1 where id = ?', [p.id]);
    const res = await postCart(t, cart.url, SHOPPER);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('only 1 of');
    const [session] = await sql<{ status: string }>(t, 'select status from checkout_sessions where token_hash = ?', [
      hashCheckoutToken(cart.token),
    ]);
    expect(session!.status).toBe('open');
    expect((await stockOf(p.id)).stock).toBe(1);
  });
});

describe('the order uses the catalogue as it is when placed', () => {
  it('a product archived after the session was made cannot be ordered', async () => {
    const own = await createTestStore(t.orm);
    const p = await addProduct(t, own.store.id);
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }], own);
    await sql(t, 'update products set archived = true where id = ?', [p.id]);
    const res = await postCart(t, cart.url, SHOPPER);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('not a product on sale');
    expect(await ordersOf(own.store.id)).toHaveLength(0);
  });

  it('a price changed since the shopper saw the total asks to check it again, then places at the new price', async () => {
    const own = await createTestStore(t.orm, { standardDeliveryFee: '0' });
    const p = await addProduct(t, own.store.id, { price: 10 });
    const cart = await cartFor([{ product_id: p.id, quantity: 1 }], own);
    await sql(t, 'update products set price = 12 where id = ?', [p.id]);
    const changed = await postCart(t, cart.url, { ...SHOPPER, expected_total: '10.0000' });
    expect(changed.statusCode).toBe(409);
    expect(changed.body).toContain('The total is now 12.00');
    expect(changed.body).toContain('value="Amina Test"');
    expect(changed.body).toContain('name="expected_total" value="12.0000"');
    expect(await ordersOf(own.store.id)).toHaveLength(0);
    expect((await postCart(t, cart.url, { ...SHOPPER, expected_total: '12.0000' })).statusCode).toBe(303);
  });
});
