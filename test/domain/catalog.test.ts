import { describe, expect, it } from 'vitest';
import { priceCart, stockAfter, type CartProduct } from '../../domain/cart.js';
import { describeOptions, duplicateVariant, findVariant, isInStock, sameOptions, shownStock } from '../../domain/catalog.js';
import { isWellFormedToken, newCheckoutToken } from '../../domain/checkout-token.js';
import { toUnits } from '../../domain/money.js';
import { validateShopperForm } from '../../domain/shopper-form.js';
import { formatMoney } from '../../web/format.js';

const product = (id: string, over: Partial<CartProduct> = {}): CartProduct => ({
  id,
  name: id,
  archived: false,
  price: toUnits(1),
  deliveryFee: null,
  stock: null,
  variants: [],
  sku: null,
  imageUrl: null,
  ...over,
});

describe('variants match by exactly the same options', () => {
  it('order of options does not matter; a missing or extra option does', () => {
    expect(sameOptions({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
    expect(sameOptions({ a: '1' }, { a: '1', b: '2' })).toBe(false);
    expect(sameOptions({ a: '1', b: '2' }, { a: '1' })).toBe(false);
    expect(sameOptions({ a: '1' }, { a: '2' })).toBe(false);
    expect(findVariant([{ options: { a: '1' } }, { options: { a: '2' } }], { a: '2' })).toBe(1);
    expect(duplicateVariant([{ options: { a: '1' } }, { options: { a: '1' } }])).toBe(1);
    expect(describeOptions({ Size: 'M', Colour: 'Red' })).toBe('Size: M, Colour: Red');
  });

  it('stock: unlimited (null), counted, and summed over variants', () => {
    expect(isInStock({ stock: null, variants: [] })).toBe(true);
    expect(isInStock({ stock: 0, variants: [] })).toBe(false);
    expect(shownStock({ stock: null, variants: [{ stock: 2 }, { stock: 3 }] })).toBe(5);
    expect(shownStock({ stock: null, variants: [{ stock: 2 }, { stock: null }] })).toBeNull();
  });
});

describe('priceCart: exact money, one delivery fee (the highest), stock counted across lines', () => {
  it('sums in exact units: 3 × 0.1 + 0.2 is 0.5, not 0.5000000001', () => {
    const products = new Map([
      ['a', product('a', { price: toUnits(0.1) })],
      ['b', product('b', { price: toUnits(0.2), deliveryFee: 0n })],
    ]);
    const cart = priceCart(
      [
        { product_id: 'a', quantity: 3, variant: null },
        { product_id: 'b', quantity: 1, variant: null },
      ],
      products,
      toUnits(7),
    );
    expect(cart.subtotal).toBe(toUnits('0.5'));
    expect(cart.deliveryFee).toBe(toUnits(7));
    expect(cart.total).toBe(toUnits('7.5'));
  });

  it('the fee is the single highest among the products (null → the standard fee)', () => {
    const products = new Map([
      ['a', product('a', { deliveryFee: toUnits(12) })],
      ['b', product('b', { deliveryFee: 0n })],
    ]);
    expect(
      priceCart(
        [
          { product_id: 'a', quantity: 1, variant: null },
          { product_id: 'b', quantity: 1, variant: null },
        ],
        products,
        toUnits(30),
      ).deliveryFee,
    ).toBe(toUnits(12));
  });

  it('reports each bad line with its field; stockAfter takes what the good lines need', () => {
    const products = new Map([
      ['a', product('a', { stock: 3 })],
      ['v', product('v', { variants: [{ options: { s: 'M' }, price: toUnits(2), stock: 1, sku: 'V-M' }] })],
    ]);
    const cart = priceCart(
      [
        { product_id: 'a', quantity: 2, variant: null },
        { product_id: 'a', quantity: 2, variant: null },
        { product_id: 'x', quantity: 1, variant: null },
        { product_id: 'v', quantity: 1, variant: { s: 'L' } },
        { product_id: 'v', quantity: 1, variant: { s: 'M' } },
      ],
      products,
      0n,
    );
    expect(cart.problems.map((p) => [p.index, p.field])).toEqual([
      [1, 'quantity'],
      [2, 'product_id'],
      [3, 'variant'],
    ]);
    expect(cart.lines.map((l) => [l.index, l.unitPrice, l.sku])).toEqual([
      [0, toUnits(1), null],
      [4, toUnits(2), 'V-M'],
    ]);
    const after = stockAfter(cart);
    expect(after.get('a')!.stock).toBe(1);
    expect(after.get('v')!.variants[0]!.stock).toBe(0);
  });
});

describe('cart tokens and the shopper form', () => {
  it('a token is 43 base64url characters, different every time, and its hash is not the token', () => {
    const a = newCheckoutToken();
    expect(isWellFormedToken(a.token)).toBe(true);
    expect(a.hash).not.toContain(a.token);
    expect(newCheckoutToken().token).not.toBe(a.token);
  });

  it('the form cleans text and names every problem at once', () => {
    const ok = validateShopperForm({ name: ' <b>Ali</b> ', phone: '0612345678', address: 'Rue 1', city: 'Fes', country: 'MA', note: '' });
    expect(ok).toEqual({
      ok: true,
      shopper: { name: 'Ali', phone: '0612345678', address: 'Rue 1', city: 'Fes', country: 'MA', note: null },
    });
    const bad = validateShopperForm({ phone: '12' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(Object.keys(bad.errors).sort()).toEqual(['address', 'city', 'country', 'name', 'phone']);
  });

  it('money is shown exactly, grouped, with 2 to 4 decimals', () => {
    expect(formatMoney(toUnits('1234567.5'), 'USD')).toBe('1,234,567.50 USD');
    expect(formatMoney(toUnits('0.1234'), 'MAD')).toBe('0.1234 MAD');
    expect(formatMoney(0n, 'EUR')).toBe('0.00 EUR');
  });
});
