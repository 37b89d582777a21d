// A cart's lines checked and priced against the catalogue. Pure: money in units of 10^-4, never floats.
import { describeOptions, findVariant, type Variant, type VariantOptions } from './catalog.js';
import { addMoney, maxMoney, mulMoney } from './money.js';

/** One line as the caller asked for it (never with a price). */
export interface CartLine {
  product_id: string;
  quantity: number;
  variant: VariantOptions | null;
}

/** A product as the cart needs it. */
export interface CartProduct {
  id: string;
  name: string;
  archived: boolean;
  price: bigint;
  /** null: the store's standard fee applies. */
  deliveryFee: bigint | null;
  stock: number | null;
  variants: Variant[];
  sku: string | null;
  imageUrl: string | null;
}

export type LineField = 'product_id' | 'variant' | 'quantity';
/** Why a line cannot be ordered; `index` is the line's position, as in the param items.<index>.<field>. */
export interface LineProblem {
  index: number;
  field: LineField;
  message: string;
}

export interface PricedLine {
  index: number;
  product: CartProduct;
  /** The matched variant's position in product.variants, or null for a product without variants. */
  variantIndex: number | null;
  variantLabel: string | null;
  quantity: number;
  unitPrice: bigint;
  lineTotal: bigint;
  sku: string | null;
}

export interface PricedCart {
  lines: PricedLine[];
  problems: LineProblem[];
  subtotal: bigint;
  /** The single highest delivery fee among the lines' products (null fee → the store's standard fee). */
  deliveryFee: bigint;
  total: bigint;
}

/**
 * Checks every line (product known and live, variant exists, stock covers the quantity, counting
 * earlier lines of the same product and variant) and prices the good ones with the catalogue's prices.
 */
export function priceCart(lines: readonly CartLine[], products: ReadonlyMap<string, CartProduct>, standardFee: bigint): PricedCart {
  const priced: PricedLine[] = [];
  const problems: LineProblem[] = [];
  const demand = new Map<string, number>();
  lines.forEach((line, index) => {
    const product = products.get(line.product_id);
    if (!product || product.archived) {
      problems.push({ index, field: 'product_id', message: 'is not a product on sale in this store' });
      return;
    }
    const wanted = line.variant && Object.keys(line.variant).length > 0 ? line.variant : null;
    let variantIndex: number | null = null;
    if (product.variants.length > 0) {
      if (!wanted) return void problems.push({ index, field: 'variant', message: `must name one of the variants of ${product.name}` });
      variantIndex = findVariant(product.variants, wanted);
      if (variantIndex < 0) return void problems.push({ index, field: 'variant', message: `matches no variant of ${product.name}` });
    } else if (wanted) {
      return void problems.push({ index, field: 'variant', message: `${product.name} has no variants` });
    }
    const variant = variantIndex === null ? null : product.variants[variantIndex]!;
    const stock = variant ? variant.stock : product.stock;
    const key = `${product.id}/${variantIndex ?? ''}`;
    const before = demand.get(key) ?? 0;
    if (stock !== null && before + line.quantity > stock) {
      const left = Math.max(0, stock - before);
      return void problems.push({
        index,
        field: 'quantity',
        message: left === 0 ? `${product.name} is sold out` : `only ${left} of ${product.name} left`,
      });
    }
    demand.set(key, before + line.quantity);
    const unitPrice = variant ? variant.price : product.price;
    priced.push({
      index,
      product,
      variantIndex,
      variantLabel: variant ? describeOptions(variant.options) : null,
      quantity: line.quantity,
      unitPrice,
      lineTotal: mulMoney(unitPrice, line.quantity),
      sku: variant?.sku ?? product.sku,
    });
  });
  const subtotal = addMoney(...priced.map((l) => l.lineTotal));
  const fees = priced.map((l) => l.product.deliveryFee ?? standardFee);
  const deliveryFee = fees.length ? maxMoney(fees[0]!, ...fees.slice(1)) : 0n;
  return { lines: priced, problems, subtotal, deliveryFee, total: subtotal + deliveryFee };
}

/** The stock each product is left with once the priced lines are taken (only products whose stock is counted). */
export function stockAfter(cart: PricedCart): Map<string, { stock: number | null; variants: Variant[] }> {
  const out = new Map<string, { stock: number | null; variants: Variant[] }>();
  for (const line of cart.lines) {
    const current = out.get(line.product.id) ?? { stock: line.product.stock, variants: line.product.variants.map((v) => ({ ...v })) };
    if (line.variantIndex === null) {
      if (current.stock === null) continue;
      current.stock -= line.quantity;
    } else {
      const variant = current.variants[line.variantIndex]!;
      if (variant.stock === null) continue;
      variant.stock -= line.quantity;
    }
    out.set(line.product.id, current);
  }
  return out;
}
